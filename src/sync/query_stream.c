/*-------------------------------------------------------------------------
 *
 * query_stream.c
 *	  Streams a query's rows straight into a Parquet writer.
 *
 * The query runs through SPI with a DestReceiver that hands each tuple to
 * the row encoder, so nothing is materialized beyond the Parquet writer's
 * row group.  A per-batch memory context, reset every few rows or once it
 * holds enough detoasted values, bounds what the encoder allocates.
 * Progress goes to the caller's callback every 128 rows.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "executor/spi.h"
#include "miscadmin.h"
#include "sync/sync.h"
#include "utils/memutils.h"

/*
 * The per-batch memory context is reset after this many rows, or sooner
 * once it holds this much (wide rows: detoasted values of many MB).
 */
#define SYNC_BATCH_ROWS 1000
#define SYNC_BATCH_BYTES (16 * 1024 * 1024)

/* Progress is reported every this many rows (a power of two). */
#define SYNC_PROGRESS_ROWS 128

/* A DestReceiver that encodes every tuple it receives. */
typedef struct SyncStreamReceiver
{
	DestReceiver pub;
	SyncRowEncoder *encoder;
	ParquetWriter *writer;
	MemoryContext batch_context;
	int			batch_rows;
	int64		rows;
	SyncStreamProgress progress;
	void	   *progress_arg;
} SyncStreamReceiver;

/* SyncStreamReceiveSlot writes one tuple, and ends a batch every so often. */
static bool
SyncStreamReceiveSlot(TupleTableSlot *slot, DestReceiver *self)
{
	SyncStreamReceiver *receiver = (SyncStreamReceiver *) self;
	MemoryContext oldcxt = MemoryContextSwitchTo(receiver->batch_context);

	SyncRowEncoderWriteSlot(receiver->encoder, receiver->writer, slot);
	MemoryContextSwitchTo(oldcxt);

	receiver->rows++;
	if (receiver->progress && (receiver->rows & (SYNC_PROGRESS_ROWS - 1)) == 0)
		receiver->progress(receiver->progress_arg, receiver->rows);
	if (++receiver->batch_rows >= SYNC_BATCH_ROWS ||
		MemoryContextMemAllocated(receiver->batch_context, false) >= SYNC_BATCH_BYTES)
	{
		MemoryContextReset(receiver->batch_context);
		receiver->batch_rows = 0;
		CHECK_FOR_INTERRUPTS();
	}
	return true;
}

/* SyncStreamStartup checks that the executor's rows are the planned ones. */
static void
SyncStreamStartup(DestReceiver *self, int operation, TupleDesc typeinfo)
{
	SyncStreamReceiver *receiver = (SyncStreamReceiver *) self;

	SyncRowEncoderCheckTupleDesc(receiver->encoder, typeinfo);
}

/* SyncStreamNoop: shutdown and destroy have nothing to do. */
static void
SyncStreamNoop(DestReceiver *self)
{
}

/*
 * SyncStreamPlan runs a prepared SPI plan and writes every row it returns;
 * returns the number of rows.  progress, if given, is called every 128 rows.
 */
int64
SyncStreamPlan(SPIPlanPtr plan, SyncRowEncoder *encoder, ParquetWriter *writer,
			   bool read_only, SyncStreamProgress progress, void *progress_arg)
{
	SyncStreamReceiver receiver;
	SPIExecuteOptions options;
	int			ret;

	memset(&receiver, 0, sizeof(receiver));
	receiver.pub.receiveSlot = SyncStreamReceiveSlot;
	receiver.pub.rStartup = SyncStreamStartup;
	receiver.pub.rShutdown = SyncStreamNoop;
	receiver.pub.rDestroy = SyncStreamNoop;
	receiver.pub.mydest = DestNone;
	receiver.encoder = encoder;
	receiver.writer = writer;
	receiver.batch_context = AllocSetContextCreate(CurrentMemoryContext,
												   "iceberg_export batch",
												   ALLOCSET_DEFAULT_SIZES);
	receiver.progress = progress;
	receiver.progress_arg = progress_arg;

	memset(&options, 0, sizeof(options));
	options.read_only = read_only;
	options.dest = &receiver.pub;
	ret = SPI_execute_plan_extended(plan, &options);
	if (ret < 0)
		elog(ERROR, "SPI_execute_plan_extended failed: %s", SPI_result_code_string(ret));
	MemoryContextDelete(receiver.batch_context);

	if (ParquetWriterRowCount(writer) < receiver.rows)
		elog(ERROR, "parquet writer has " INT64_FORMAT " rows, expected at least " INT64_FORMAT,
			 ParquetWriterRowCount(writer), receiver.rows);
	return receiver.rows;
}
