/*-------------------------------------------------------------------------
 *
 * compress.c
 *	  Page compression: ZSTD (one frame), SNAPPY (raw block), GZIP (RFC 1952).
 *
 * The ZSTD context is malloc'ed by libzstd; a reset callback on the
 * writer's memory context frees it, so an error never leaks it.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <snappy-c.h>
#include <zlib.h>
#include <zstd.h>

#include "parquet/parquet_int.h"

/* PqFreeCompressor releases the codec state when the writer's context goes. */
static void
PqFreeCompressor(void *arg)
{
	ParquetWriter *writer = (ParquetWriter *) arg;

	if (writer->compressor != NULL && writer->options.codec == PARQUET_CODEC_ZSTD)
		ZSTD_freeCCtx((ZSTD_CCtx *) writer->compressor);
	writer->compressor = NULL;
}

/* PqCompressorInit prepares the codec state for the writer's codec. */
void
PqCompressorInit(ParquetWriter *writer)
{
	MemoryContextCallback *cb;

	writer->compressor = NULL;
	if (writer->options.codec != PARQUET_CODEC_ZSTD)
		return;

	cb = MemoryContextAlloc(writer->context, sizeof(MemoryContextCallback));
	cb->func = PqFreeCompressor;
	cb->arg = writer;
	MemoryContextRegisterResetCallback(writer->context, cb);

	writer->compressor = ZSTD_createCCtx();
	if (writer->compressor == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("could not create a zstd compression context")));
}

/* PqCompressGzip compresses into a single gzip member with zlib. */
static void
PqCompressGzip(int level, const uint8 *src, size_t len, PqBuf *out)
{
	z_stream	zs;
	int			rc;

	memset(&zs, 0, sizeof(zs));
	if (deflateInit2(&zs, level > 0 ? level : Z_DEFAULT_COMPRESSION, Z_DEFLATED,
					 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		elog(ERROR, "could not initialize gzip compression");
	PqBufReserve(out, deflateBound(&zs, len));
	zs.next_in = (Bytef *) src;
	zs.avail_in = len;
	zs.next_out = out->data + out->len;
	zs.avail_out = out->cap - out->len;
	rc = deflate(&zs, Z_FINISH);
	out->len += zs.total_out;
	deflateEnd(&zs);
	if (rc != Z_STREAM_END)
		elog(ERROR, "gzip compression failed: %d", rc);
}

/* PqCompress appends the compressed form of src to out. */
void
PqCompress(ParquetWriter *writer, const uint8 *src, size_t len, PqBuf *out)
{
	switch (writer->options.codec)
	{
		case PARQUET_CODEC_UNCOMPRESSED:
			PqBufAppend(out, src, len);
			break;
		case PARQUET_CODEC_ZSTD:
			{
				size_t		bound = ZSTD_compressBound(len);
				size_t		n;
				int			level = writer->options.compression_level;

				PqBufReserve(out, bound);
				n = ZSTD_compressCCtx((ZSTD_CCtx *) writer->compressor,
									  out->data + out->len, bound, src, len,
									  level != 0 ? level : 3);
				if (ZSTD_isError(n))
					elog(ERROR, "zstd compression failed: %s", ZSTD_getErrorName(n));
				out->len += n;
				break;
			}
		case PARQUET_CODEC_SNAPPY:
			{
				size_t		n = snappy_max_compressed_length(len);

				PqBufReserve(out, n);
				if (snappy_compress((const char *) src, len,
									(char *) out->data + out->len, &n) != SNAPPY_OK)
					elog(ERROR, "snappy compression failed");
				out->len += n;
				break;
			}
		case PARQUET_CODEC_GZIP:
			PqCompressGzip(writer->options.compression_level, src, len, out);
			break;
	}
}
