/*-------------------------------------------------------------------------
 *
 * worker.h
 *	  Background workers: the interface of src/worker/.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ICEBERG_EXPORT_WORKER_H
#define ICEBERG_EXPORT_WORKER_H

#include "postgres.h"

/* Entry point of a sync worker (started by iceberg_sync()). */
extern PGDLLEXPORT void iceberg_export_sync_worker_main(Datum main_arg);

#endif							/* ICEBERG_EXPORT_WORKER_H */
