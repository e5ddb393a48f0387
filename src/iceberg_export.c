/*-------------------------------------------------------------------------
 *
 * iceberg_export.c
 *	  Module entry point: _PG_init, GUCs and the version() function.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "utils/builtins.h"
#include "utils/guc.h"

PG_MODULE_MAGIC;

#define ICEBERG_EXPORT_VERSION "0.1.0"

/*
 * GUCs: every iceberg_export.* setting is defined here, each C variable under
 * a comment naming its GUC.  (None yet.)
 */

void		_PG_init(void);

PG_FUNCTION_INFO_V1(version);

/*
 * _PG_init defines the GUCs and calls each module's init function (one line
 * per module, in DESIGN.md §2 order).
 */
void
_PG_init(void)
{
	/* module inits go here */

	MarkGUCPrefixReserved("iceberg_export");
}

/*
 * version returns the version of the loaded library, for
 * iceberg_export.version().
 */
Datum
version(PG_FUNCTION_ARGS)
{
	PG_RETURN_TEXT_P(cstring_to_text(ICEBERG_EXPORT_VERSION));
}
