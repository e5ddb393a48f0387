/*-------------------------------------------------------------------------
 *
 * dictionary.c
 *	  Hash dictionary of the distinct values of one column chunk.
 *
 * Entries are kept PLAIN-encoded back to back, which is exactly the body of
 * the chunk's dictionary page.  An open-addressing table of entry numbers
 * finds duplicates.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "common/hashfn.h"
#include "parquet/parquet_int.h"

#define PQ_DICT_INITIAL_SLOTS 1024

/* PqDictInit sets up an empty dictionary. */
void
PqDictInit(PqDict *dict, MemoryContext context)
{
	PqBufInit(&dict->plain, context, 8192);
	dict->entries_cap = PQ_DICT_INITIAL_SLOTS / 2;
	dict->offsets = MemoryContextAlloc(context, sizeof(uint32) * dict->entries_cap);
	dict->hashes = MemoryContextAlloc(context, sizeof(uint32) * dict->entries_cap);
	dict->nslots = PQ_DICT_INITIAL_SLOTS;
	dict->slots = MemoryContextAllocZero(context, sizeof(uint32) * dict->nslots);
	dict->nentries = 0;
}

/* PqDictReset empties the dictionary, keeping its memory. */
void
PqDictReset(PqDict *dict)
{
	dict->plain.len = 0;
	dict->nentries = 0;
	memset(dict->slots, 0, sizeof(uint32) * dict->nslots);
}

/* PqDictHash hashes a value; fixed-width values get a cheap integer mix. */
static inline uint32
PqDictHash(const uint8 *value, int32 len)
{
	if (len == 8 || len == 4)
	{
		uint64		v = 0;

		memcpy(&v, value, len);
		/* the 64-bit finalizer of MurmurHash3 */
		v ^= v >> 33;
		v *= UINT64CONST(0xff51afd7ed558ccd);
		v ^= v >> 33;
		v *= UINT64CONST(0xc4ceb9fe1a85ec53);
		v ^= v >> 33;
		return (uint32) v;
	}
	return hash_bytes(value, len);
}

/* PqDictEntry returns the value of entry index. */
void
PqDictEntry(const PqDict *dict, uint32 index, int width,
			const uint8 **value, int32 *len)
{
	const uint8 *p = dict->plain.data + dict->offsets[index];

	if (width > 0)
	{
		*value = p;
		*len = width;
	}
	else
	{
		uint32		l;

		memcpy(&l, p, 4);		/* little-endian host assumed, see writer.c */
		*value = p + 4;
		*len = (int32) l;
	}
}

/* PqDictGrowSlots doubles the hash table and reinserts every entry. */
static void
PqDictGrowSlots(PqDict *dict)
{
	uint32		nslots = dict->nslots * 2;
	uint32	   *slots = MemoryContextAllocZero(dict->plain.context,
											   sizeof(uint32) * nslots);

	for (uint32 e = 0; e < dict->nentries; e++)
	{
		uint32		s = dict->hashes[e] & (nslots - 1);

		while (slots[s] != 0)
			s = (s + 1) & (nslots - 1);
		slots[s] = e + 1;
	}
	pfree(dict->slots);
	dict->slots = slots;
	dict->nslots = nslots;
}

/* PqDictEqualFixed compares two fixed-width values of the common widths. */
static inline bool
PqDictEqualFixed(const uint8 *a, const uint8 *b, int width)
{
	switch (width)
	{
		case 4:
			{
				uint32		x,
							y;

				memcpy(&x, a, 4);
				memcpy(&y, b, 4);
				return x == y;
			}
		case 8:
			{
				uint64		x,
							y;

				memcpy(&x, a, 8);
				memcpy(&y, b, 8);
				return x == y;
			}
		case 16:
			{
				uint64		x[2],
							y[2];

				memcpy(x, a, 16);
				memcpy(y, b, 16);
				return x[0] == y[0] && x[1] == y[1];
			}
		default:
			return memcmp(a, b, width) == 0;
	}
}

/*
 * PqDictLookupOrAdd finds value in the dictionary, adding it when new.
 * Returns true when the value was added; *index is its entry number.
 * width is the fixed value width, or 0 for length-prefixed byte arrays.
 */
bool
PqDictLookupOrAdd(PqDict *dict, const uint8 *value, int32 len, int width,
				  uint32 *index)
{
	uint32		h = PqDictHash(value, len);
	uint32		mask = dict->nslots - 1;
	uint32		s = h & mask;

	for (;;)
	{
		uint32		e = dict->slots[s];

		if (e == 0)
			break;
		e--;
		if (dict->hashes[e] == h)
		{
			const uint8 *ev = dict->plain.data + dict->offsets[e];

			if (width > 0)
			{
				if (PqDictEqualFixed(ev, value, width))
				{
					*index = e;
					return false;
				}
			}
			else
			{
				uint32		elen;

				memcpy(&elen, ev, 4);
				if (elen == (uint32) len && memcmp(ev + 4, value, len) == 0)
				{
					*index = e;
					return false;
				}
			}
		}
		s = (s + 1) & mask;
	}

	/* new entry */
	if (dict->nentries >= dict->entries_cap)
	{
		dict->entries_cap *= 2;
		dict->offsets = repalloc_huge(dict->offsets, sizeof(uint32) * dict->entries_cap);
		dict->hashes = repalloc_huge(dict->hashes, sizeof(uint32) * dict->entries_cap);
	}
	dict->offsets[dict->nentries] = (uint32) dict->plain.len;
	dict->hashes[dict->nentries] = h;
	if (width == 0)
		PqBufAppendUInt32LE(&dict->plain, (uint32) len);
	PqBufAppend(&dict->plain, value, len);
	dict->slots[s] = dict->nentries + 1;
	*index = dict->nentries++;

	if (dict->nentries * 2 > dict->nslots)
		PqDictGrowSlots(dict);
	return true;
}
