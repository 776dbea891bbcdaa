/* SPDX-License-Identifier: MIT */
/*
 * oracle/requirements.h: the normative sentences of the spec documents,
 * each with a stable requirement ID.
 *
 * Every rule of the oracle, every conformance case and every test that
 * checks a spec sentence cites one of these IDs, so `divergence cases
 * --matrix` can print which sentences are checked and which are not.
 * The table itself is oracle/requirements.c.
 */
#ifndef ORACLE_REQUIREMENTS_H
#define ORACLE_REQUIREMENTS_H

#include <stddef.h>

typedef struct oracle_requirement {
    const char *id;       /* e.g. "ONNX-DIV6-INT-TRUNC" */
    const char *document; /* a document of docs/specs.md, "IEEE 754-2019",
                             or "docs/semantics.md" */
    const char *where;    /* section within the document */
    const char *sentence; /* the sentence, quoted */
} oracle_requirement;

/* The requirement with this ID, or NULL. */
const oracle_requirement *oracle_requirement_find(const char *id);

/* Number of requirements and the i-th one (0 <= i < count), in table order. */
size_t oracle_requirement_count(void);
const oracle_requirement *oracle_requirement_at(size_t i);

#endif /* ORACLE_REQUIREMENTS_H */
