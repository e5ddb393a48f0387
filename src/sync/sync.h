/*-------------------------------------------------------------------------
 *
 * sync.h
 *	  Interface of src/sync/: reading Postgres rows and turning them into
 *	  Iceberg data files.
 *
 * pg_types.c maps Postgres types (type oid and typmod) onto Iceberg types
 * and decides once per column how its values are encoded (an "encoder
 * plan"); docs/type-mapping.md describes the mapping for users.
 * row_encoder.c builds the Iceberg schema and the Parquet schema of a
 * result's TupleDesc and writes tuples through the Parquet writer.
 * write_parquet.c is the SQL function iceberg_export.write_parquet().
 *
 *-------------------------------------------------------------------------
 */
#ifndef ICEBERG_EXPORT_SYNC_H
#define ICEBERG_EXPORT_SYNC_H

#include "postgres.h"

#include "access/tupdesc.h"
#include "executor/spi.h"
#include "executor/tuptable.h"
#include "fmgr.h"
#include "iceberg/iceberg_types.h"
#include "parquet/parquet.h"

/* Version string recorded in the files we write. */
#ifndef ICEBERG_EXPORT_VERSION
#define ICEBERG_EXPORT_VERSION "0.1.0"
#endif
#define ICEBERG_EXPORT_CREATED_BY "iceberg_export version " ICEBERG_EXPORT_VERSION

/* How the values of one column (or nested field) are encoded. */
typedef enum SyncValueKind
{
	SYNC_VALUE_BOOL,
	SYNC_VALUE_INT2,
	SYNC_VALUE_INT4,
	SYNC_VALUE_INT8,
	SYNC_VALUE_FLOAT4,
	SYNC_VALUE_FLOAT8,
	SYNC_VALUE_NUMERIC,			/* numeric varlena decoded to an unscaled int128 */
	SYNC_VALUE_DATE,
	SYNC_VALUE_TIME,
	SYNC_VALUE_TIMESTAMP,		/* timestamp and timestamptz */
	SYNC_VALUE_UUID,
	SYNC_VALUE_BYTEA,
	SYNC_VALUE_TEXT,			/* text, varchar, bpchar, json: the varlena's bytes */
	SYNC_VALUE_NAME,
	SYNC_VALUE_CHAR,			/* "char" */
	SYNC_VALUE_ENUM,			/* label from the encoder's cache */
	SYNC_VALUE_OUTPUT,			/* string from the type's output function */
	SYNC_VALUE_ARRAY,			/* 1-D array to list */
	SYNC_VALUE_COMPOSITE		/* composite to struct */
} SyncValueKind;

/*
 * The encoder plan of one value: made once per column by SyncPlanValue,
 * mirrored by its Iceberg type (a struct has one field plan per live
 * attribute, a list one element plan).
 */
typedef struct SyncValuePlan
{
	SyncValueKind kind;
	char	   *path;			/* dotted column path, for messages */
	Oid			typid;			/* declared type (possibly a domain) */
	Oid			basetypid;		/* after looking through domains */
	int32		basetypmod;
	IcebergType *type;

	/* SYNC_VALUE_NUMERIC: decimal(precision, scale) */
	int			precision;
	int			scale;

	/* SYNC_VALUE_OUTPUT */
	FmgrInfo	outfunc;

	/* SYNC_VALUE_ARRAY */
	int16		elmlen;
	bool		elmbyval;
	char		elmalign;
	struct SyncValuePlan *element;

	/* SYNC_VALUE_COMPOSITE */
	TupleDesc	tupdesc;		/* private copy */
	int			nfields;		/* live (not dropped) attributes */
	int		   *attnums;		/* field i is tupdesc attribute attnums[i] (0-based) */
	struct SyncValuePlan *fields;
	Datum	   *values;			/* heap_deform_tuple buffers */
	bool	   *isnull;

	/* set by the row encoder */
	ParquetNodeId node;
} SyncValuePlan;

/* The plan of a whole result row: an Iceberg schema and one plan per column. */
typedef struct SyncTuplePlan
{
	IcebergType *schema;		/* struct with field ids 1..n, nested ids after */
	int			ncolumns;
	int		   *attnums;		/* column i is tuple attribute attnums[i] (0-based) */
	SyncValuePlan *columns;
} SyncTuplePlan;

/* pg_types.c */

/*
 * SyncPlanValue fills in the plan and the Iceberg type (without ids) of a
 * value of type typid/typmod, in CurrentMemoryContext; path names it in
 * messages.  It raises an error for types that cannot be exported.
 */
extern void SyncPlanValue(SyncValuePlan *plan, Oid typid, int32 typmod,
						  const char *path);

/*
 * SyncPlanTupleDesc plans every column of a result's TupleDesc and assigns
 * the Iceberg field ids; duplicate column names are an error.
 */
extern SyncTuplePlan *SyncPlanTupleDesc(TupleDesc tupdesc);

/* Conversions from Postgres's 2000-01-01 epoch to Iceberg's 1970-01-01. */
extern int32 SyncDateToIceberg(int32 date, const SyncValuePlan *plan);
extern int64 SyncTimestampToIceberg(int64 timestamp, const SyncValuePlan *plan);

/*
 * SyncNumericToUnscaled converts a numeric datum to its unscaled value at
 * the plan's scale, raising an error rather than rounding.
 */
extern int128 SyncNumericToUnscaled(Datum value, const SyncValuePlan *plan);

/* row_encoder.c */

typedef struct SyncRowEncoder SyncRowEncoder;

/*
 * SyncRowEncoderCreate plans a result's columns and builds its Iceberg and
 * Parquet schemas in a new child context of parent.
 */
extern SyncRowEncoder *SyncRowEncoderCreate(TupleDesc tupdesc, MemoryContext parent);

/* The Iceberg schema (struct with ids) and the Parquet schema of the rows. */
extern const IcebergType *SyncRowEncoderIcebergSchema(const SyncRowEncoder *encoder);
extern ParquetSchema *SyncRowEncoderParquetSchema(const SyncRowEncoder *encoder);

/* SyncRowEncoderCheckTupleDesc errors out if tupdesc's columns differ. */
extern void SyncRowEncoderCheckTupleDesc(const SyncRowEncoder *encoder, TupleDesc tupdesc);

/*
 * SyncRowEncoderWriteSlot writes one tuple as one Parquet row.  It may
 * allocate (detoasting, output functions) in CurrentMemoryContext, which
 * the caller resets every batch.
 */
extern void SyncRowEncoderWriteSlot(SyncRowEncoder *encoder, ParquetWriter *writer,
									TupleTableSlot *slot);

/* SyncRowEncoderDestroy frees the encoder's context. */
extern void SyncRowEncoderDestroy(SyncRowEncoder *encoder);

/* query_stream.c */

/* SyncStreamProgress is told the rows written so far, every 128 rows. */
typedef void (*SyncStreamProgress) (void *arg, int64 rows);

extern int64 SyncStreamPlan(SPIPlanPtr plan, SyncRowEncoder *encoder,
							ParquetWriter *writer, bool read_only,
							SyncStreamProgress progress, void *progress_arg);

/* sync_run.c: one run of one destination, in a background worker */
extern bool SyncRunExecute(const char *destination, const char *run_id,
						   bool full_refresh, const char *trigger);

/* progress.c: progress of running syncs, in shared memory (preload only) */
typedef enum SyncPhase
{
	SYNC_PHASE_SNAPSHOT,
	SYNC_PHASE_READING,
	SYNC_PHASE_WRITING,
	SYNC_PHASE_PUBLISHING,
	SYNC_PHASE_COMMITTING,
	SYNC_PHASE_MAINTENANCE
} SyncPhase;

extern void SyncProgressShmemInit(void);
extern void SyncProgressBegin(const char *run_id, const char *destination);
extern void SyncProgressPhase(SyncPhase phase);
extern void SyncProgressTable(const char *table);
extern void SyncProgressCount(int64 rows, int64 bytes);
extern void SyncProgressEnd(void);

/* GUC variables, defined in iceberg_export.c */
extern char *IcebergExportFaultInjection;
extern int	IcebergExportHistoryRetentionDays;
extern char *IcebergExportDatabase;
extern int	IcebergExportMaxConcurrentSyncs;

#endif							/* ICEBERG_EXPORT_SYNC_H */
