/* SPDX-License-Identifier: MIT */
/*
 * harness/sandbox/sandbox.h: the worker's sandbox, a library of its own
 * (dvg_sandbox). What confines a plugin's worker program, and how, is
 * decided here from one value (sandbox_spec: what to confine, how) into
 * one record (sandbox_plan: what will hold), and checked here from
 * outside (attest.c). The harness's client of a worker (harness/worker/)
 * starts each process with the record; the worker program installs its
 * own seccomp filter with child_confine. Nothing here knows a worker: the
 * library never sees the client's structs.
 *
 * The files, in the order a reviewer reads them:
 *   spec.c     sandbox_prepare: the mode, the environment (the allowlist,
 *              the grants' variables, the caller's --env), the plugin's
 *              private copy, the view, the cgroup, the outer filter
 *   bwrap.c    bubblewrap's arguments for one start (sandbox_bwrap)
 *   view.c     the worker's view: the closure of the program and the
 *              plugin, resolved as the loader would (elf.c reads ELF)
 *   grant.c    the grants (grant.h): data a plugin is granted by name
 *   cgroup.c   a pids and memory cgroup per worker
 *   seccomp.c  the two seccomp filters (libseccomp)
 *   attest.c   the layers seen from outside (/proc), the run's floor,
 *              their names
 *   identity.c an implementation's name (identity.h)
 *
 * Errors. A function that can fail returns an int status, 0 on success,
 * and writes what went wrong into the caller's buffer `err` (cap bytes,
 * NUL-terminated, truncated; SANDBOX_ERR_MAX is enough). It never exits
 * and never prints.
 */
#ifndef HARNESS_SANDBOX_H
#define HARNESS_SANDBOX_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "harness/sandbox/grant.h"

/* Bytes of an error buffer that hold every message of this library. */
#define SANDBOX_ERR_MAX 512

/* ------------------------------------------------------------------------
 * Levels, modes, layers
 * ---------------------------------------------------------------------- */

/* The level a caller asks for (sandbox_spec.level, worker_options.sandbox):
 * every layer this host allows; every layer or a refusal naming the
 * missing one; none (debugging). */
#define WORKER_SANDBOX_AUTO   0
#define WORKER_SANDBOX_STRICT 1
#define WORKER_SANDBOX_OFF    2

/* How a worker's processes are started (sandbox_plan.mode; the setup message
 * carries it to the worker program). */
enum { LAUNCH_FULL = 1, /* through bubblewrap: namespaces, the view */
       LAUNCH_REDUCED,  /* no user namespaces: exec'd directly, the rest */
       LAUNCH_OFF };    /* --sandbox off */

/* Test hooks (sandbox_spec.hooks; DIVERGENCE_TEST_SANDBOX, read by the
 * worker's client): start reduced as if the host refused user
 * namespaces; start as if no cgroup could be made. */
#define SANDBOX_HOOK_REDUCED 1
#define SANDBOX_HOOK_NOCGROUP 2

/* The variables of the caller's environment a plugin sees (a trailing '*'
 * matches any suffix); every other one is dropped. HOME and TMPDIR are
 * set to the scratch directory (/tmp of the sandbox) instead. */
#define WORKER_ENV_ALLOW                                                                \
    "PATH", "LANG", "LANGUAGE", "LC_*", "TZ", "LD_LIBRARY_PATH", "OMP_*", "KMP_*",       \
        "GOMP_*", "MKL_*", "DNNL_*", "ONEDNN_*", "OPENBLAS_*", "ORT_*", "TORCH_*",       \
        "ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS", "MSAN_OPTIONS", "TSAN_OPTIONS"

/* Bits of worker_info.layers: the layers of isolation in force, as the
 * harness set them up and saw them from outside (attest.c), never as the
 * worker says. */
#define WORKER_LAYER_USER     1u   /* user namespace (bubblewrap) */
#define WORKER_LAYER_PID      2u   /* PID namespace */
#define WORKER_LAYER_NET      4u   /* network namespace (no interface up) */
#define WORKER_LAYER_MOUNT    8u   /* mount namespace: the view */
#define WORKER_LAYER_IPC     16u   /* IPC namespace */
#define WORKER_LAYER_UTS     32u   /* UTS namespace */
#define WORKER_LAYER_LANDLOCK 64u  /* Landlock: reads and writes by path */
#define WORKER_LAYER_SECCOMP 128u  /* the seccomp filters (seccomp.c) */
#define WORKER_LAYER_OFF     256u  /* WORKER_SANDBOX_OFF asked for none */
#define WORKER_LAYER_NO_USERNS 512u /* reduced: this host refused user namespaces */
#define WORKER_LAYER_UNPRIV 1024u  /* a uid and gid other than 0, no capability,
                                      no_new_privs */
#define WORKER_LAYER_CGROUP 2048u  /* its own pids and memory cgroup */
#define WORKER_LAYER_NS 63u        /* the six namespaces */
#define WORKER_LAYER_ALL (WORKER_LAYER_NS | WORKER_LAYER_LANDLOCK | WORKER_LAYER_SECCOMP | \
                          WORKER_LAYER_UNPRIV | WORKER_LAYER_CGROUP)

/* Writes the layers as one line of text into buf (cap bytes, at least 1;
 * WORKER_LAYERS_TEXT is enough): "user,pid,net,mount,ipc,uts ns +
 * landlock + seccomp + unprivileged uid + pids,memory cgroup", "reduced
 * (no user namespaces): landlock + seccomp + ...; missing: user,...,uts
 * ns", "UNCONFINED (--sandbox off): seccomp only", "UNCONFINED (--sandbox
 * off): no isolation"; whatever is short of every layer names what is
 * missing. Returns buf. */
#define WORKER_LAYERS_TEXT 160
const char *worker_describe_layers(uint32_t layers, char *buf, size_t cap);

/* The whole sandbox line of a worker: its layers (worker_describe_layers)
 * then " + grant NAME: WHAT" for each grant in force
 * (worker_describe_grants), both computed by the harness. buf: cap bytes,
 * WORKER_SANDBOX_TEXT is enough. Returns buf. */
#define WORKER_SANDBOX_TEXT 1024
const char *worker_describe_sandbox(uint32_t layers, uint32_t grants, char *buf, size_t cap);

/* ------------------------------------------------------------------------
 * The worker program's descriptors, and where it sits in the view
 * ---------------------------------------------------------------------- */

/* Descriptors 0 .. SANDBOX_FD_SLOTS - 1 are the worker program's own
 * (the client places them; the wire protocol names them); whatever the
 * sandbox passes on (bubblewrap's) sits above them. The emulator of an
 * emulated worker is the first descriptor above (close-on-exec). */
#define SANDBOX_FD_SLOTS 8
#define SANDBOX_FD_EMULATOR SANDBOX_FD_SLOTS

/* The largest plugin file (its apparent size) a worker copies: every
 * worker holds the copy in memory, twice under bubblewrap. The real
 * adapters are 0.2 to 11 MiB. */
#define SANDBOX_MAX_PLUGIN_BYTES (UINT64_C(256) << 20)

/* Where the worker program is inside the view, and the emulator of an
 * emulated worker (a static executable, bound alone). */
#define VIEW_PROGRAM "/usr/libexec/worker"
#define VIEW_EMULATOR "/usr/libexec/emulator"

/* ------------------------------------------------------------------------
 * The records a prepared sandbox holds
 * ---------------------------------------------------------------------- */

enum { VIEW_BIND = 1, /* the file src, bound read-only at dst */
       VIEW_COPY,     /* the plugin: a private copy of src's bytes at dst */
       VIEW_LINK };   /* a symbolic link dst -> src (its text) */

typedef struct view_entry {
    int kind;
    char *dst;    /* absolute, free of links */
    char *src;    /* the host file's real path, or the link's text */
    dev_t dev;    /* the file resolved (BIND, COPY) */
    ino_t ino;
    int copy;     /* BIND: the worker's uid cannot reach the file
                     (view_reachable): its bytes are copied instead */
} view_entry;

/* The files the worker sees (LAUNCH_FULL), or what Landlock lets it read
 * (LAUNCH_REDUCED). */
typedef struct view {
    view_entry *e;
    uint32_t n, cap;
    char *plugin;          /* the path the worker dlopens (absolute, or
                              the bare name it was given) */
    uint32_t plugin_index; /* internal; UINT32_MAX: no such file */
    char **preload;        /* the plugin's libraries, each after its own
                              dependencies: loaded first in reduced mode */
    uint32_t n_preload;
} view;

enum { CG_MEMORY, CG_PIDS, CG_COUNT };
#define CG_ALL 3u

typedef struct cgroup {
    int v2;                      /* 1: the unified hierarchy (one folder) */
    char dir[CG_COUNT][PATH_MAX];
    uint32_t have;               /* 1 << CG_*: the folders made */
    uint64_t oom_seen;           /* OOM kills counted so far (the caller's) */
} cgroup;

#define ATTEST_NS 6 /* user, pid, net, mnt, ipc, uts */

/* What /proc shows of one process. */
typedef struct attest_snapshot {
    char ns[ATTEST_NS][64];  /* the /proc/PID/ns/ links */
    int root;                /* a uid or gid of it is 0 */
    unsigned uid;            /* its effective uid */
    int nnp;                 /* no_new_privs */
    int seccomp, filters;    /* Seccomp: mode, Seccomp_filters */
    uint64_t caps;           /* CapEff | CapPrm */
    char cgroups[2048];      /* /proc/PID/cgroup */
} attest_snapshot;

/* ------------------------------------------------------------------------
 * The input: what to confine, and how
 * ---------------------------------------------------------------------- */

typedef struct sandbox_spec {
    const char *plugin;        /* the plugin's path (absolute, or a bare
                                  name as dlopen finds it); borrowed */
    int level;                 /* WORKER_SANDBOX_* */
    int confine;               /* 1: the worker program adds its own
                                  filter (one more the attestation wants) */
    uint32_t grants;           /* WORKER_GRANT_* (grant.h) */
    uint32_t limit_pids;       /* processes of the worker, 0: no limit */
    const char *const *env;    /* n_env "K=V" added to the plugin's
                                  environment last (NULL entries skipped);
                                  borrowed */
    uint32_t n_env;
    const char *cpu;           /* an emulated CPU's name ("Haswell"), NULL
                                  native: QEMU's emulator goes in the view */
    uint32_t hooks;            /* SANDBOX_HOOK_* */
} sandbox_spec;

/* ------------------------------------------------------------------------
 * The output: what will hold (filled by sandbox_prepare)
 * ---------------------------------------------------------------------- */

typedef struct sandbox_plan {
    int mode;               /* LAUNCH_*; 0 before sandbox_prepare */
    uint32_t planned;       /* WORKER_LAYER_* a start sets up */
    int want_filters;       /* seccomp filters a worker must show */
    char program[PATH_MAX]; /* the worker program (host path) */
    char emulator[PATH_MAX]; /* emulated: the emulator's host path */
    view view;              /* LAUNCH_FULL, LAUNCH_REDUCED */
    char **envp;            /* the plugin's environment, NULL-terminated */
    int plugin_copy;        /* a sealed memfd of the plugin's bytes, -1 */
    char *privdir;          /* LAUNCH_REDUCED: the folder of its copy */
    uint8_t *bpf;           /* the outer seccomp filter, as BPF */
    size_t bpf_len;
    unsigned uid, gid;      /* the ids the worker runs as */
    uint32_t nproc;         /* RLIMIT_NPROC to set without a pids group */
    int keeper;             /* 1: a keeper reaps (no cgroup, reduced) */
    cgroup cg;              /* the worker's groups (cg.have 0: none) */
    grant_plan grant;       /* what the grants add on this host */
    attest_snapshot zsnap;  /* the worker process's, for its runners
                               (attest_worker, attest_runner) */
} sandbox_plan;

/* Decides how `spec` is confined on this host into *s (zeroed or freed
 * before; plugin_copy -1): the mode, the worker program
 * (divergence-worker, datadir_find_program), the environment, the view and
 * the plugin's copy, the cgroup, the outer filter as BPF, the layers
 * planned. Returns 0; 1 when this host cannot give what spec asks (a
 * grant that needs the view in reduced mode, an emulated CPU without
 * QEMU, --sandbox strict short of a layer): err names why, for the
 * caller's load error; -1 on a harness error (memory, files) with err.
 * On 1 and -1 *s is freed. */
int sandbox_prepare(sandbox_plan *s, const sandbox_spec *spec, char *err, size_t cap);

/* Releases what sandbox_prepare made (the view, the environment, the
 * copy and its folder, the filter, the cgroup after killing what is in
 * it) and sets mode 0. Accepts a zeroed record (plugin_copy -1) and one
 * freed before. */
void sandbox_free(sandbox_plan *s);

/* ------------------------------------------------------------------------
 * One start through bubblewrap
 * ---------------------------------------------------------------------- */

#define SANDBOX_MAX_FDS 1100 /* descriptors bubblewrap is given */

typedef struct sandbox_args {
    char bwrap[PATH_MAX];        /* bubblewrap's path */
    char argsnum[16];            /* --args: the descriptor of the
                                    NUL-separated arguments, in decimal */
    int pass[SANDBOX_MAX_FDS];   /* to pass on (bubblewrap's), all
                                  * numbered >= SANDBOX_FD_SLOTS */
    int n_pass;
    int infofd;                  /* the read end of --info-fd, -1 */
} sandbox_args;

/* bubblewrap's arguments for one start of s (LAUNCH_FULL) into a: the
 * namespaces, the environment, the outer filter, the view (a descriptor
 * per file, opened again and checked to be the file resolved), a
 * grant's folders and devices. 0, or -1 with err; either way the caller
 * closes a's descriptors (sandbox_args_close) once the child holds them.
 * Called before a fork: it allocates. */
int sandbox_bwrap(const sandbox_plan *s, sandbox_args *a, char *err, size_t cap);

/* Closes a's descriptors (pass[], infofd unless taken: set it -1). */
void sandbox_args_close(sandbox_args *a);

/* fd moved to a number >= SANDBOX_FD_SLOTS, close-on-exec (the slots stay
 * free; the old number is closed); fd itself when it is -1 or above the
 * slots already; -1 when it cannot be moved. */
int sandbox_above_slots(int fd);

/* ------------------------------------------------------------------------
 * cgroups (cgroup.c), as a prepared sandbox holds them
 * ---------------------------------------------------------------------- */

/* A descriptor of controller `which`'s cgroup.procs (write "0" to join),
 * or -1. */
int cg_procs_fd(const cgroup *c, int which);
uint64_t cg_memory_usage(const cgroup *c);
/* The memory limit (swap included where the kernel counts it). 0 or -1. */
int cg_set_memory(const cgroup *c, uint64_t bytes);
/* OOM kills in the group so far. */
uint64_t cg_oom_kills(const cgroup *c);
/* Kills every process in the group until none is left. 0, or -1. */
int cg_kill_all(const cgroup *c);

/* ------------------------------------------------------------------------
 * The check from outside (attest.c)
 * ---------------------------------------------------------------------- */

/* Reads process pid's snapshot. 0 or -1. */
int attest_read(pid_t pid, attest_snapshot *s);

/* The layers in force in the worker process pid: what s->planned names
 * and /proc shows (inner: the bits the worker reported before any plugin
 * code ran; only WORKER_LAYER_LANDLOCK is taken from it). Keeps the
 * snapshot in s->zsnap for attest_runner. why (cap bytes) says what could
 * not be read, "" otherwise. */
uint32_t attest_worker(sandbox_plan *s, pid_t pid, uint32_t inner, char *why, size_t cap);

/* 0 when the runner pid shows its zygote's namespaces, groups, and at
 * least its filters and restrictions (s->zsnap); -1 with why. */
int attest_runner(const sandbox_plan *s, pid_t pid, char *why, size_t cap);

/* The run's floor: the first call in this process records `layers`; a
 * later call with fewer returns -1 with why. */
int attest_floor(uint32_t layers, char *why, size_t cap);

/* Reads the small file at `path` (a /proc or cgroup file) into buf, at
 * most len - 1 bytes, NUL-terminated: the byte count, or 0 when it cannot
 * (buf then holds ""). Safe in the worker program too. */
size_t sandbox_read_small(const char *path, char *buf, size_t len);

/* ------------------------------------------------------------------------
 * The worker program's own filter (seccomp.c)
 * ---------------------------------------------------------------------- */

/* Installs the parts of the worker's own seccomp filter
 * (worker_options.confine, libseccomp) that `parts` names, on top of the
 * outer one; 1 when it is in force. Needs no_new_privs. Each call stacks
 * one more filter. `mode` is the sandbox's (LAUNCH_*).
 *   CONFINE_BASE   exec; in LAUNCH_OFF `mode` sockets other than AF_UNIX
 *   CONFINE_PROCS  fork, vfork, clone (threads allowed), clone3,
 *                  pidfd_send_signal, signals to other processes, setpgid
 *                  and setsid; the pids it allows are the caller's (install
 *                  it in the process it is for: a runner adds it after its
 *                  fork and its setpgid) */
#define CONFINE_BASE 1
#define CONFINE_PROCS 2
#define CONFINE_ALL (CONFINE_BASE | CONFINE_PROCS)
/* A grant's two stages (grant.h, GRANT_EXEC_IN_OPEN): CONFINE_OPEN is
 * CONFINE_BASE without the exec rules and without CONFINE_PROCS (a
 * posix_spawn is a clone without CLONE_THREAD), in force while the plugin
 * loads and opens; CONFINE_EXEC, the exec rules alone, is added when open()
 * returns, before any compute (and CONFINE_PROCS with it where no zygote
 * forks runners). */
#define CONFINE_OPEN 4
#define CONFINE_EXEC 8
/* With CONFINE_BASE (never with CONFINE_OPEN: a grant that execs in open()
 * is refused under an emulator): exec stays refused except execveat of
 * the descriptor number SANDBOX_FD_EMULATOR with AT_EMPTY_PATH alone
 * (seccomp compares the number and the flags, never a path): the one exec
 * of an emulated worker, whose descriptor is close-on-exec. */
#define CONFINE_EMULATOR 16
int child_confine(int parts, uint32_t mode);

#endif /* HARNESS_SANDBOX_H */
