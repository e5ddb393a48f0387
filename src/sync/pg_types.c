/*-------------------------------------------------------------------------
 *
 * pg_types.c
 *	  Mapping of Postgres types onto Iceberg types, and value conversions.
 *
 * The mapping (also in docs/type-mapping.md; keep both in step):
 *
 *   boolean                         boolean
 *   smallint, integer               int
 *   bigint                          long
 *   real                            float
 *   double precision                double
 *   numeric(p,s), 1<=p<=38, 0<=s<=p decimal(p,s)
 *   numeric (no typmod)             decimal(38,9)
 *   numeric(p,s), p>38 or s<0 or s>p  string (output function)
 *   date                            date
 *   time                            time
 *   timestamp                       timestamp
 *   timestamptz                     timestamptz (microseconds, UTC)
 *   uuid                            uuid (the 16 bytes as stored)
 *   bytea                           binary
 *   text, varchar, char(n), name,   string (char(n) keeps its padding,
 *   "char", enums, json               as its output does)
 *   jsonb                           string (jsonb's output function)
 *   domains                         their base type
 *   1-D arrays                      list with optional elements
 *   composite types                 struct with optional fields
 *   anything else                   string (the type's output function)
 *
 * Decisions:
 *
 * - Unconstrained numeric becomes decimal(38,9): 29 digits before the point
 *   and 9 after.  Values are never rounded: NaN, +-Infinity, values with more
 *   fractional digits than the scale, or more integer digits than the
 *   precision allows, are errors (22003) that name the column and value and
 *   suggest a cast.  Trailing fractional zeros do not count (1.50 fits a
 *   scale of 1).  Numerics are decoded from their varlena (stable on disk
 *   across pg_upgrade) into an int128, never through text.
 * - Dates and timestamps move from Postgres's 2000-01-01 epoch to 1970.
 *   +-infinity become DuckDB's own infinity sentinels: INT32_MAX and
 *   -INT32_MAX for dates, INT64_MAX and -INT64_MAX for timestamps, so DuckDB
 *   reads them back as infinity (other engines see far-off dates).
 *   Timestamps after year 294246 no longer fit in int64 microseconds since
 *   1970 and are errors (22008).
 * - time is microseconds since midnight; 24:00:00 is written as 86400000000.
 * - Multi-dimensional arrays are errors (0A000); array lower bounds are not
 *   kept; empty arrays are empty lists and NULL elements null elements.
 * - Every column, struct field and list element is optional: query results
 *   do not promise NOT NULL.
 * - Anonymous records are structs only when their row type is registered
 *   (a blessed typmod); otherwise, like pseudo-types, they are errors.
 * - Strings are UTF-8: in a database whose encoding is not UTF-8 (and not
 *   SQL_ASCII, whose bytes are passed through) text is converted.
 * - Column names must be unique (42701).  Field ids follow Iceberg's
 *   assignFreshIds: top-level columns 1..n, then the nested ids of each
 *   column in turn (IcebergAssignFreshIds).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "common/int.h"
#include "datatype/timestamp.h"
#include "miscadmin.h"
#include "sync/sync.h"
#include "utils/builtins.h"
#include "utils/date.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/numeric.h"
#include "utils/typcache.h"

/* Unconstrained numeric is written as this decimal. */
#define SYNC_NUMERIC_DEFAULT_PRECISION 38
#define SYNC_NUMERIC_DEFAULT_SCALE 9

/* Days and microseconds from 1970-01-01 to 2000-01-01. */
#define SYNC_EPOCH_SHIFT_DAYS (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE)
#define SYNC_EPOCH_SHIFT_USECS ((int64) SYNC_EPOCH_SHIFT_DAYS * USECS_PER_DAY)

/*
 * The numeric varlena layout, from src/backend/utils/adt/numeric.c (PG15).
 * After the varlena header comes a uint16 header word.  If its top bits are
 * 10 the value is in short format: sign (0x2000), display scale (0x1F80 >>
 * 7) and a 7-bit two's complement weight (0x007F) share that word, and the
 * digits follow.  11 means special: NaN (0xC000), +Inf (0xD000), -Inf
 * (0xF000).  00 (positive) or 01 (negative) is the long format: the word
 * holds the display scale (0x3FFF), an int16 weight follows, then digits.
 * Digits are int16 in base NBASE = 10000, most significant first; the
 * value is sum(digit[i] * NBASE^(weight - i)).
 */
#define NUMERIC_SIGN_MASK	0xC000
#define NUMERIC_NEG			0x4000
#define NUMERIC_SHORT		0x8000
#define NUMERIC_SPECIAL		0xC000
#define NUMERIC_EXT_SIGN_MASK 0xF000
#define NUMERIC_NAN			0xC000
#define NUMERIC_PINF		0xD000
#define NUMERIC_SHORT_SIGN_MASK 0x2000
#define NUMERIC_SHORT_WEIGHT_SIGN_MASK 0x0040
#define NUMERIC_SHORT_WEIGHT_MASK 0x003F
#define NBASE_DIGITS		4

/* numeric typmod layout (numeric.c): ((precision << 16) | (scale & 0x7ff)) + VARHDRSZ */
#define SYNC_NUMERIC_TYPMOD_PRECISION(t) ((((t) - VARHDRSZ) >> 16) & 0xffff)
#define SYNC_NUMERIC_TYPMOD_SCALE(t) (((((t) - VARHDRSZ) & 0x7ff) ^ 1024) - 1024)

/* int128 powers of ten 10^0 .. 10^38, filled in on first use. */
static int128 sync_pow10[ICEBERG_MAX_DECIMAL_PRECISION + 1];
static bool sync_pow10_ready = false;

static void SyncNumericError(Datum value, const SyncValuePlan *plan,
							 const char *why) pg_attribute_noreturn();

/* SyncPlanString makes a plan write strings of the given kind. */
static void
SyncPlanString(SyncValuePlan *plan, SyncValueKind kind)
{
	plan->kind = kind;
	plan->type = IcebergTypeMake(ICEBERG_TYPE_STRING);
}

/*
 * SyncPlanOutput makes a plan write strings from the type's output
 * function, or errors out when the type has none.
 */
static void
SyncPlanOutput(SyncValuePlan *plan)
{
	Oid			outfunc;
	bool		isvarlena;

	getTypeOutputInfo(plan->basetypid, &outfunc, &isvarlena);
	if (!OidIsValid(outfunc))
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("column \"%s\" has type %s, which has no output function",
						plan->path, format_type_be(plan->typid))));
	fmgr_info(outfunc, &plan->outfunc);
	SyncPlanString(plan, SYNC_VALUE_OUTPUT);
}

/* SyncPlanNumeric plans numeric: a decimal when the typmod allows, else a string. */
static void
SyncPlanNumeric(SyncValuePlan *plan)
{
	int32		typmod = plan->basetypmod;
	int			precision = SYNC_NUMERIC_DEFAULT_PRECISION;
	int			scale = SYNC_NUMERIC_DEFAULT_SCALE;

	if (typmod >= (int32) VARHDRSZ)
	{
		precision = SYNC_NUMERIC_TYPMOD_PRECISION(typmod);
		scale = SYNC_NUMERIC_TYPMOD_SCALE(typmod);
		if (precision < 1 || precision > ICEBERG_MAX_DECIMAL_PRECISION ||
			scale < 0 || scale > precision)
		{
			SyncPlanOutput(plan);
			return;
		}
	}
	plan->kind = SYNC_VALUE_NUMERIC;
	plan->precision = precision;
	plan->scale = scale;
	plan->type = IcebergTypeMakeDecimal(precision, scale);
}

/* SyncPlanComposite plans a composite type (or registered record) as a struct. */
static void
SyncPlanComposite(SyncValuePlan *plan)
{
	TupleDesc	tupdesc;
	int			nlive = 0;

	tupdesc = lookup_rowtype_tupdesc_noerror(plan->basetypid, plan->basetypmod, true);
	if (tupdesc == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("column \"%s\" has an anonymous record type", plan->path),
				 errdetail("The fields of a record built with ROW() are not known before the query runs."),
				 errhint("Cast the value to a composite type made with CREATE TYPE ... AS, or to text.")));
	plan->tupdesc = CreateTupleDescCopy(tupdesc);
	ReleaseTupleDesc(tupdesc);
	tupdesc = plan->tupdesc;

	for (int i = 0; i < tupdesc->natts; i++)
		if (!TupleDescAttr(tupdesc, i)->attisdropped)
			nlive++;
	if (nlive == 0)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("column \"%s\" has composite type %s, which has no attributes",
						plan->path, format_type_be(plan->typid)),
				 errhint("Parquet cannot store a struct without fields; cast the column to text or leave it out.")));

	plan->kind = SYNC_VALUE_COMPOSITE;
	plan->nfields = nlive;
	plan->attnums = palloc(sizeof(int) * nlive);
	plan->fields = palloc0(sizeof(SyncValuePlan) * nlive);
	plan->values = palloc(sizeof(Datum) * tupdesc->natts);
	plan->isnull = palloc(sizeof(bool) * tupdesc->natts);
	plan->type = IcebergTypeMakeStruct(nlive);

	nlive = 0;
	for (int i = 0; i < tupdesc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(tupdesc, i);
		IcebergField *field = &plan->type->fields[nlive];
		char	   *path;

		if (att->attisdropped)
			continue;
		path = psprintf("%s.%s", plan->path, NameStr(att->attname));
		SyncPlanValue(&plan->fields[nlive], att->atttypid, att->atttypmod, path);
		plan->attnums[nlive] = i;
		field->name = pstrdup(NameStr(att->attname));
		field->required = false;
		field->type = plan->fields[nlive].type;
		nlive++;
	}
}

/* SyncPlanValue fills in the encoder plan and Iceberg type of one value. */
void
SyncPlanValue(SyncValuePlan *plan, Oid typid, int32 typmod, const char *path)
{
	Oid			elemtype;
	char		typtype;

	check_stack_depth();

	memset(plan, 0, sizeof(SyncValuePlan));
	plan->path = pstrdup(path);
	plan->typid = typid;
	plan->basetypmod = typmod;
	plan->basetypid = getBaseTypeAndTypmod(typid, &plan->basetypmod);
	typtype = get_typtype(plan->basetypid);

	if (plan->basetypid == RECORDOID || typtype == TYPTYPE_COMPOSITE)
	{
		SyncPlanComposite(plan);
		return;
	}
	if (typtype == TYPTYPE_PSEUDO)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("column \"%s\" has pseudo-type %s, which cannot be exported",
						plan->path, format_type_be(plan->typid)),
				 errhint("Cast the column to a concrete type.")));

	elemtype = get_element_type(plan->basetypid);
	if (OidIsValid(elemtype))
	{
		/* an array column's typmod is its elements' typmod */
		plan->kind = SYNC_VALUE_ARRAY;
		get_typlenbyvalalign(elemtype, &plan->elmlen, &plan->elmbyval, &plan->elmalign);
		plan->element = palloc0(sizeof(SyncValuePlan));
		SyncPlanValue(plan->element, elemtype, plan->basetypmod,
					  psprintf("%s.element", plan->path));
		plan->type = IcebergTypeMakeList(false, plan->element->type);
		return;
	}
	if (typtype == TYPTYPE_ENUM)
	{
		SyncPlanString(plan, SYNC_VALUE_ENUM);
		return;
	}

	switch (plan->basetypid)
	{
		case BOOLOID:
			plan->kind = SYNC_VALUE_BOOL;
			plan->type = IcebergTypeMake(ICEBERG_TYPE_BOOLEAN);
			break;
		case INT2OID:
			plan->kind = SYNC_VALUE_INT2;
			plan->type = IcebergTypeMake(ICEBERG_TYPE_INT);
			break;
		case INT4OID:
			plan->kind = SYNC_VALUE_INT4;
			plan->type = IcebergTypeMake(ICEBERG_TYPE_INT);
			break;
		case INT8OID:
			plan->kind = SYNC_VALUE_INT8;
			plan->type = IcebergTypeMake(ICEBERG_TYPE_LONG);
			break;
		case FLOAT4OID:
			plan->kind = SYNC_VALUE_FLOAT4;
			plan->type = IcebergTypeMake(ICEBERG_TYPE_FLOAT);
			break;
		case FLOAT8OID:
			plan->kind = SYNC_VALUE_FLOAT8;
			plan->type = IcebergTypeMake(ICEBERG_TYPE_DOUBLE);
			break;
		case NUMERICOID:
			SyncPlanNumeric(plan);
			break;
		case DATEOID:
			plan->kind = SYNC_VALUE_DATE;
			plan->type = IcebergTypeMake(ICEBERG_TYPE_DATE);
			break;
		case TIMEOID:
			plan->kind = SYNC_VALUE_TIME;
			plan->type = IcebergTypeMake(ICEBERG_TYPE_TIME);
			break;
		case TIMESTAMPOID:
			plan->kind = SYNC_VALUE_TIMESTAMP;
			plan->type = IcebergTypeMake(ICEBERG_TYPE_TIMESTAMP);
			break;
		case TIMESTAMPTZOID:
			plan->kind = SYNC_VALUE_TIMESTAMP;
			plan->type = IcebergTypeMake(ICEBERG_TYPE_TIMESTAMPTZ);
			break;
		case UUIDOID:
			plan->kind = SYNC_VALUE_UUID;
			plan->type = IcebergTypeMake(ICEBERG_TYPE_UUID);
			break;
		case BYTEAOID:
			plan->kind = SYNC_VALUE_BYTEA;
			plan->type = IcebergTypeMake(ICEBERG_TYPE_BINARY);
			break;
		case TEXTOID:
		case VARCHAROID:
		case BPCHAROID:
		case JSONOID:
			SyncPlanString(plan, SYNC_VALUE_TEXT);
			break;
		case NAMEOID:
			SyncPlanString(plan, SYNC_VALUE_NAME);
			break;
		case CHAROID:
			SyncPlanString(plan, SYNC_VALUE_CHAR);
			break;
		default:
			/* jsonb, interval, money, inet, timetz, xml, ranges, ... */
			SyncPlanOutput(plan);
			break;
	}
}

/* SyncPlanTupleDesc plans every live column of a result and assigns field ids. */
SyncTuplePlan *
SyncPlanTupleDesc(TupleDesc tupdesc)
{
	SyncTuplePlan *plan = palloc0(sizeof(SyncTuplePlan));
	int			nlive = 0;
	int32		next_id = 1;

	for (int i = 0; i < tupdesc->natts; i++)
		if (!TupleDescAttr(tupdesc, i)->attisdropped)
			nlive++;
	if (nlive == 0)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("query returns no columns"),
				 errhint("A Parquet file needs at least one column.")));

	plan->ncolumns = nlive;
	plan->attnums = palloc(sizeof(int) * nlive);
	plan->columns = palloc0(sizeof(SyncValuePlan) * nlive);
	plan->schema = IcebergTypeMakeStruct(nlive);

	nlive = 0;
	for (int i = 0; i < tupdesc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(tupdesc, i);
		const char *name = NameStr(att->attname);
		IcebergField *field = &plan->schema->fields[nlive];

		if (att->attisdropped)
			continue;
		for (int j = 0; j < nlive; j++)
			if (strcmp(plan->schema->fields[j].name, name) == 0)
				ereport(ERROR,
						(errcode(ERRCODE_DUPLICATE_COLUMN),
						 errmsg("query returns more than one column named \"%s\"", name),
						 errdetail("Iceberg column names must be unique."),
						 errhint("Give the columns distinct names with AS.")));

		SyncPlanValue(&plan->columns[nlive], att->atttypid, att->atttypmod, name);
		plan->attnums[nlive] = i;
		field->name = pstrdup(name);
		field->required = false;
		field->type = plan->columns[nlive].type;
		nlive++;
	}

	IcebergAssignFreshIds(plan->schema, &next_id);
	return plan;
}

/* SyncDateToIceberg converts a date to days since 1970-01-01. */
int32
SyncDateToIceberg(int32 date, const SyncValuePlan *plan)
{
	int32		result;

	if (DATE_IS_NOEND(date))
		return PG_INT32_MAX;
	if (DATE_IS_NOBEGIN(date))
		return -PG_INT32_MAX;
	/* finite dates are far from the ends of int32 */
	if (pg_add_s32_overflow(date, SYNC_EPOCH_SHIFT_DAYS, &result) ||
		result == PG_INT32_MAX || result <= -PG_INT32_MAX)
		ereport(ERROR,
				(errcode(ERRCODE_DATETIME_FIELD_OVERFLOW),
				 errmsg("date out of range for Iceberg in column \"%s\"", plan->path),
				 errdetail("The value does not fit in 32-bit days since 1970-01-01."),
				 errhint("Cast the column to text.")));
	return result;
}

/*
 * SyncTimestampToIceberg converts a timestamp or timestamptz to
 * microseconds since 1970-01-01 (UTC for timestamptz, which Postgres
 * already stores in UTC).
 */
int64
SyncTimestampToIceberg(int64 timestamp, const SyncValuePlan *plan)
{
	int64		result;

	if (TIMESTAMP_IS_NOEND(timestamp))
		return PG_INT64_MAX;
	if (TIMESTAMP_IS_NOBEGIN(timestamp))
		return -PG_INT64_MAX;
	/* a result equal to a sentinel would read back as infinity */
	if (pg_add_s64_overflow(timestamp, SYNC_EPOCH_SHIFT_USECS, &result) ||
		result == PG_INT64_MAX || result == -PG_INT64_MAX)
	{
		Oid			outfunc = plan->basetypid == TIMESTAMPTZOID ?
			F_TIMESTAMPTZ_OUT : F_TIMESTAMP_OUT;

		ereport(ERROR,
				(errcode(ERRCODE_DATETIME_FIELD_OVERFLOW),
				 errmsg("timestamp out of range for Iceberg in column \"%s\"", plan->path),
				 errdetail("The value %s does not fit in 64-bit microseconds since 1970-01-01.",
						   OidOutputFunctionCall(outfunc, Int64GetDatum(timestamp))),
				 errhint("Cast the column to text, or leave out timestamps after the year 294000.")));
	}
	return result;
}

/* SyncNumericError reports a numeric that does not fit the plan's decimal. */
static void
SyncNumericError(Datum value, const SyncValuePlan *plan, const char *why)
{
	ereport(ERROR,
			(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
			 errmsg("numeric value out of range for decimal(%d,%d) column \"%s\"",
					plan->precision, plan->scale, plan->path),
			 errdetail("Column \"%s\" has the value %s, which %s.", plan->path,
					   OidOutputFunctionCall(F_NUMERIC_OUT, value), why),
			 errhint("Values are never rounded. Cast the column to numeric(p,s) with a larger precision or scale (p at most 38), or to text.")));
}

/* SyncPow10Init fills in the table of int128 powers of ten. */
static void
SyncPow10Init(void)
{
	sync_pow10[0] = 1;
	for (int i = 1; i <= ICEBERG_MAX_DECIMAL_PRECISION; i++)
		sync_pow10[i] = sync_pow10[i - 1] * 10;
	sync_pow10_ready = true;
}

/*
 * SyncNumericToUnscaled decodes a numeric varlena into its unscaled value
 * at the plan's scale: value * 10^scale, exactly, with |result| < 10^precision.
 */
int128
SyncNumericToUnscaled(Datum value, const SyncValuePlan *plan)
{
	struct varlena *v = pg_detoast_datum_packed((struct varlena *) DatumGetPointer(value));
	const char *data = VARDATA_ANY(v);
	int			len = VARSIZE_ANY_EXHDR(v);
	const char *digits;
	uint16		header;
	int			weight;
	bool		negative;
	int			ndigits;
	int128		limit;
	int128		acc = 0;

	if (unlikely(!sync_pow10_ready))
		SyncPow10Init();

	/* the data may be unaligned (short varlena header): copy each field */
	memcpy(&header, data, sizeof(uint16));
	if ((header & NUMERIC_SIGN_MASK) == NUMERIC_SPECIAL)
		SyncNumericError(value, plan,
						 (header & NUMERIC_EXT_SIGN_MASK) == NUMERIC_NAN ?
						 "is not a number" : "is infinite");
	if ((header & NUMERIC_SIGN_MASK) == NUMERIC_SHORT)
	{
		negative = (header & NUMERIC_SHORT_SIGN_MASK) != 0;
		weight = (header & NUMERIC_SHORT_WEIGHT_SIGN_MASK) ?
			(int) (header & NUMERIC_SHORT_WEIGHT_MASK) - (NUMERIC_SHORT_WEIGHT_MASK + 1) :
			(int) (header & NUMERIC_SHORT_WEIGHT_MASK);
		digits = data + sizeof(uint16);
	}
	else
	{
		int16		w;

		negative = (header & NUMERIC_SIGN_MASK) == NUMERIC_NEG;
		memcpy(&w, data + sizeof(uint16), sizeof(int16));
		weight = w;
		digits = data + sizeof(uint16) + sizeof(int16);
	}
	ndigits = (len - (int) (digits - data)) / (int) sizeof(int16);

	limit = sync_pow10[plan->precision];
	for (int i = 0; i < ndigits; i++)
	{
		int16		d;
		int			exp10;
		int128		term;

		memcpy(&d, digits + i * sizeof(int16), sizeof(int16));
		if (d == 0)
			continue;
		/* this digit's place value is 10^exp10 in units of 10^-scale */
		exp10 = NBASE_DIGITS * (weight - i) + plan->scale;
		if (exp10 >= 0)
		{
			if (exp10 > plan->precision ||
				sync_pow10[exp10] > (limit - 1 - acc) / d)
				SyncNumericError(value, plan, "has too many digits before the decimal point");
			term = d * sync_pow10[exp10];
		}
		else
		{
			if (-exp10 >= NBASE_DIGITS || d % (int) sync_pow10[-exp10] != 0)
				SyncNumericError(value, plan, "has too many digits after the decimal point");
			term = d / (int) sync_pow10[-exp10];
			if (term > limit - 1 - acc)
				SyncNumericError(value, plan, "has too many digits before the decimal point");
		}
		acc += term;
	}
	return negative ? -acc : acc;
}
