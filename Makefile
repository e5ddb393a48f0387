# Makefile for iceberg_export (PGXS)
#
#   make                 build iceberg_export.so
#   make install         install into the PostgreSQL that PG_CONFIG names
#   make ASSERTS=1       also compile with -DUSE_ASSERT_CHECKING
#   bash scripts/test.sh run every test (pg_regress, pgTAP, interop)

EXTENSION  = iceberg_export
MODULE_big = iceberg_export

# every src/*.c and src/<area>/*.c, in a stable order
OBJS = $(patsubst %.c,%.o,$(sort $(wildcard src/*.c src/*/*.c)))

# install scripts only; everything else in sql/ is a pg_regress input
DATA = $(sort $(wildcard sql/iceberg_export--*.sql))

REGRESS      = $(sort $(basename $(notdir $(filter-out sql/iceberg_export--%,$(wildcard sql/*.sql)))))
REGRESS_OPTS = --inputdir=.

# Debian's PostgreSQL 15 unless told otherwise
ifeq ($(origin PG_CONFIG),undefined)
PG_CONFIG := $(firstword $(wildcard /usr/lib/postgresql/15/bin/pg_config) pg_config)
endif

# third-party libraries: pkg-config where a .pc file exists
PKG_LIBS   = libcurl jansson libzstd openssl avro-c zlib
PKG_CFLAGS := $(shell pkg-config --cflags $(PKG_LIBS))
PKG_LDLIBS := $(shell pkg-config --libs $(PKG_LIBS))
# snappy (C API in snappy-c.h) has a .pc file only in some releases
SNAPPY_LDLIBS := $(shell pkg-config --libs snappy 2>/dev/null || echo -lsnappy)

PG_CPPFLAGS = -Isrc $(PKG_CFLAGS)
PG_CFLAGS   = -Wall -Wextra -Werror \
              -Wno-unused-parameter -Wno-missing-field-initializers -Wno-sign-compare
ifeq ($(ASSERTS),1)
PG_CPPFLAGS += -DUSE_ASSERT_CHECKING
endif
SHLIB_LINK = $(PKG_LDLIBS) $(SNAPPY_LDLIBS)

EXTRA_CLEAN = results regression.diffs regression.out .build-flags

PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

# objects depend on the headers of the tree, so a header change rebuilds,
# and on .build-flags, so switching ASSERTS rebuilds
$(OBJS): $(wildcard src/*.h src/*/*.h) .build-flags

.build-flags: FORCE
	@echo 'ASSERTS=$(ASSERTS)' | cmp -s - $@ || echo 'ASSERTS=$(ASSERTS)' > $@

.PHONY: FORCE print-regress
FORCE:

# print-regress lists the pg_regress tests (scripts/test.sh reads it)
print-regress:
	@echo $(REGRESS)

.PHONY: test
test:
	bash scripts/test.sh
