/* rawformat.h — every constant of the raw trace format, in one place: what
 * the tracer (src/), the generator (tools/gen) and the recovery
 * (format/recover.c) write, and what every reader expects.
 *
 * A raw trace is a directory of one OTF2 archive per rank
 * (rank-NNNNNN.otf2, its .def and its rank-NNNNNN/ folder of local files)
 * with its membership file rank-NNNNNN.members beside it, rank 0's
 * run.meta, and, while a rank runs, its recovery journal
 * rank-NNNNNN.journal and its records file rank-NNNNNN.records
 * (recfile.h); once it closed, its checksum file rank-NNNNNN.sum. Changing any value here changes the format: bump
 * the journal or run.meta format version with it, and keep the readers
 * able to read what older tracers wrote. */
#ifndef SYNCTRACE_RAWFORMAT_H
#define SYNCTRACE_RAWFORMAT_H

#include <stdint.h>

/* ---------- file names ---------- */

#define RF_RANK_PREFIX "rank-"
#define RF_RANK_NAME_FMT "rank-%06d"           /* an archive's name */
#define RF_RANK_NAME_LEN 11                    /* strlen("rank-NNNNNN") */
#define RF_MAX_RANK 999999                     /* what six digits can name */
#define RF_ANCHOR_SUFFIX ".otf2"
#define RF_DEF_SUFFIX ".def"
#define RF_EVT_SUFFIX ".evt"
#define RF_JOURNAL_SUFFIX ".journal"
#define RF_SUM_SUFFIX ".sum"                   /* a closed rank's checksum file (format/sumfile.h) */
#define RF_MEMBERS_SUFFIX ".members"           /* its communicators' world ranks (format/members.h) */
#define RF_META_FILE "run.meta"
#define RF_META_TMP_FILE "run.meta.tmp"

/* ---------- archive properties ---------- */

#define RF_PROP_VERSION "SYNCTRACE::VERSION"
#define RF_PROP_RUN_ID "SYNCTRACE::RUN_ID"
#define RF_PROP_RANK "SYNCTRACE::RANK"
#define RF_PROP_WORLD_SIZE "SYNCTRACE::WORLD_SIZE"
#define RF_PROP_HOST "SYNCTRACE::HOST"
#define RF_PROP_CLOCK "SYNCTRACE::CLOCK"
#define RF_PROP_CLOCK_DOMAIN "SYNCTRACE::CLOCK_DOMAIN"
#define RF_PROP_SKEW_OFFSET_US "SYNCTRACE::SKEW_OFFSET_US"
#define RF_PROP_SKEW_DRIFT_PPM "SYNCTRACE::SKEW_DRIFT_PPM"
#define RF_PROP_RECOVERED "SYNCTRACE::RECOVERED"   /* "true": rebuilt from a journal */
#define RF_PROP_MEMBERS "SYNCTRACE::MEMBERS"       /* RF_MEMBERS_FORMAT: the archive has a membership file */
/* SYNCTRACE::OUTSIDE_<SET>: what outside set SET is (see RF_OUTSIDE_BASE):
 * "spawn KEY" the job this world spawned, whose intercommunicator has key
 * KEY (16 hex digits), member INDEX its world rank; "parent KEY" the job
 * that spawned this one, member INDEX its rank in the spawning
 * communicator; "connect KEY" the remote group of an MPI_Comm_accept,
 * connect or join intercommunicator, member INDEX its rank there. */
#define RF_PROP_OUTSIDE_FMT "SYNCTRACE::OUTSIDE_%u"
#define RF_OUTSIDE_SPAWN "spawn"
#define RF_OUTSIDE_PARENT "parent"
#define RF_OUTSIDE_CONNECT "connect"

/* A communicator member outside this rank's MPI_COMM_WORLD is written as
 * OTF2_UNDEFINED_UINT64 when nothing is known of it, else as
 * RF_OUTSIDE_BASE | SET << 32 | INDEX: process INDEX of outside set SET. */
#define RF_OUTSIDE_BASE 0xFFFF000000000000ULL
#define RF_OUTSIDE_MAX_SETS 0xFFFFu
#define RF_OUTSIDE_MEMBER(set, index) (RF_OUTSIDE_BASE | (uint64_t)(set) << 32 | (uint64_t)(uint32_t)(index))
#define RF_MEMBER_IS_OUTSIDE(m) \
    ((m) != 0xFFFFFFFFFFFFFFFFULL && ((m) & 0xFFFF000000000000ULL) == RF_OUTSIDE_BASE)
#define RF_OUTSIDE_SET(m) ((uint32_t)(((m) >> 32) & 0xFFFFu))
#define RF_OUTSIDE_INDEX(m) ((uint32_t)(m))

/* A spawned job's processes learn their parent from the environment
 * variable RF_ENV_PARENT, "KEY RUN_ID DIR" (the spawn intercommunicator's
 * key in hex, the parent run's id, its trace directory), which the parent's
 * tracer hands them through the "env" info key of MPI_Comm_spawn (Open
 * MPI); their trace goes to DIR/spawn-N, N the lowest free number. DIR is
 * left out when the value would exceed MPI_MAX_INFO_VAL: SYNCTRACE_DIR then. */
#define RF_ENV_PARENT "SYNCTRACE_PARENT"
#define RF_SPAWN_DIR_PREFIX "spawn-"

/* ---------- global definitions (format/defs_write.h writes them) ---------- */

/* The true_time attribute: each event's undistorted time with SYNCTRACE_SKEW. */
#define RF_ATTR_TRUE_TIME 0
#define RF_ATTR_TRUE_TIME_NAME "true_time"
#define RF_ATTR_TRUE_TIME_DESC "undistorted time of the event (SYNCTRACE_SKEW)"

/* Attributes are found by name: a raw archive and the merged one number
 * them differently, and readers accept both.
 *
 * A raw archive (rf_attr_layout, format/defs_write.h) numbers its
 * attributes densely in the order it defines them (otf2-print warns of
 * any gap): true_time (RF_ATTR_TRUE_TIME, only with SYNCTRACE_SKEW), then
 * coll_sources_slots, freed_receive_comm, _source, _tag, collapsed_calls,
 * then one coll_sources_<k> per 64-slot word k its events carry, in the
 * order the tracer first recorded them (journal: "source_word K REF"), so
 * a rank that never was a sparse member of a large group defines none:
 * O(own). The merged archive, and raw archives of older tracers (journal
 * format 1), use the world-sized layout: true_time 0, coll_sources_slots
 * RF_ATTR_SOURCES_SLOTS, coll_sources_<k> RF_ATTR_SOURCES_BITS + k for every
 * word a world-sized group needs, the freed_receive_* and collapsed_calls
 * after them (RF_ATTR_FREED_RECEIVE, RF_ATTR_COLLAPSED_CALLS).
 *
 * A sparse alltoallv/w member's non-empty source slots, on its
 * CollectiveEnd / NonBlockingCollectiveComplete: coll_sources_slots holds
 * the slot count (or RF_SOURCES_UNKNOWN: sparse, slots not kept),
 * coll_sources_<k> the bits 64k .. 64k+63 (words all zero are left out). */
#define RF_ATTR_SOURCES_SLOTS 1
#define RF_ATTR_SOURCES_SLOTS_NAME "coll_sources_slots"
#define RF_ATTR_SOURCES_SLOTS_DESC "collective: source slots of a sparse alltoallv/w member"
#define RF_ATTR_SOURCES_BITS 2
#define RF_ATTR_SOURCES_BITS_FMT "coll_sources_%u"
#define RF_ATTR_SOURCES_BITS_DESC "collective: non-empty source slots, 64 per word"
#define RF_SOURCES_UNKNOWN UINT32_MAX
#define RF_SOURCE_WORDS(world_size) ((world_size) > 0 ? ((uint32_t)(world_size) + 63) / 64 : 1u)

/* A receive request released by MPI_Request_free before it completed
 * (on its MpiRequestTest): what it was posted for, communicator, source
 * and tag (in the world-sized layout after the collective source words). */
#define RF_ATTR_FREED_RECEIVE(world_size, k) (RF_ATTR_SOURCES_BITS + RF_SOURCE_WORDS(world_size) + (uint32_t)(k))
#define RF_ATTR_FREED_RECEIVE_COMM_NAME "freed_receive_comm"
#define RF_ATTR_FREED_RECEIVE_SOURCE_NAME "freed_receive_source"
#define RF_ATTR_FREED_RECEIVE_TAG_NAME "freed_receive_tag"
#define RF_ATTR_FREED_RECEIVE_DESC "a receive request released by MPI_Request_free before it completed: " \
                                   "what it was posted for"

/* A run of unsuccessful polling calls (MPI_Test*, MPI_Iprobe, MPI_Improbe,
 * MPI_Request_get_status with the same arguments) written as one region
 * (src/polling.h): on its Enter, the number of calls (2 or more; a region
 * without it is one call). Defined after the freed_receive_* attributes. */
#define RF_ATTR_COLLAPSED_CALLS(world_size) RF_ATTR_FREED_RECEIVE(world_size, 3)
#define RF_ATTR_COLLAPSED_CALLS_NAME "collapsed_calls"
#define RF_ATTR_COLLAPSED_CALLS_DESC "polling: unsuccessful calls with the same arguments recorded as this one " \
                                     "region (SYNCTRACE_POLL_COLLAPSE)"

/* System tree: a machine with one node (the host), one location group per
 * rank, named so. */
#define RF_SYSTEM_TREE_ROOT "machine"
#define RF_SYSTEM_TREE_NODE "node"
#define RF_LOCATION_GROUP_FMT "MPI Rank %d"
/* A process outside the trace (a spawned, parent or connected job's): a
 * location group and one location without events, under a node of its own;
 * %s says which process ("spawn KEY process 1", see RF_PROP_OUTSIDE_FMT). */
#define RF_SYSTEM_TREE_OUTSIDE "outside the trace"
#define RF_LOCATION_GROUP_OUTSIDE_FMT "outside the trace: %s"

/* Locations: the main thread (the one that called MPI_Init) has the rank as
 * its id; the N-th other thread that called MPI, N << 32 | rank. Named as
 * Score-P names them, in raw and merged archives alike (a process outside
 * the trace too): never as their location group, since viewers (ViTE) name
 * a row "<name>_<id>" and a group and its main location share the id. */
#define RF_MAIN_THREAD_NAME "Master thread"
#define RF_THREAD_NAME_FMT "Pthread thread %u"
#define RF_THREAD_LOCATION(n, rank) ((uint64_t)(n) << 32 | (uint64_t)(uint32_t)(rank))

/* Groups. An archive with a membership file (RF_PROP_MEMBERS) defines
 * four, whatever its communicators: RF_GROUP_OWN_LOCATIONS, the
 * COMM_LOCATIONS group of this rank's main location alone; RF_GROUP_OWN,
 * the COMM_GROUP of that one member, every communicator's group (an
 * intercommunicator is written as a Comm on it: its remote group is in the
 * membership file, and OTF2 3.0's Python bindings cannot read InterComm);
 * RF_GROUP_SELF, the COMM_SELF group of MPI_COMM_SELF. Who the members of
 * each communicator are (world ranks), its key and in-neighbours are in
 * the membership file (format/members.h). OTF2 readers thus see each
 * communicator as this rank alone, and every location a group names is
 * defined. */
#define RF_GROUP_OWN_LOCATIONS 0
#define RF_GROUP_OWN_LOCATIONS_NAME "synctrace: this rank's location"
#define RF_GROUP_OWN 1
#define RF_GROUP_OWN_NAME "synctrace: this rank (members: its .members file)"
#define RF_GROUP_SELF 2

/* Archives without a membership file (older tracers) have: group 0 lists
 * the world's locations (member i is world rank i); then
 * the member lists, interned (every communicator of one list shares it;
 * MPI_COMM_SELF's is a COMM_SELF group without members), numbered from
 * RF_GROUP_FIRST_MEMBERS; then one empty group per communicator that has an
 * agreed key, named RF_COMM_KEY_FMT; then a topology communicator's
 * in-neighbours of this rank, each found by its name (RF_IN_NEIGHBOURS_FMT
 * with c). A communicator is a Comm on its member group, an
 * intercommunicator an InterComm on its local and its remote group. The
 * readers keep reading them; nothing writes them any more. */
#define RF_GROUP_WORLD 0
#define RF_GROUP_WORLD_NAME "MPI_COMM_WORLD locations"
#define RF_GROUP_FIRST_MEMBERS 1
#define RF_COMM_KEY_FMT "synctrace key of comm %u: %016llx"
#define RF_COMM_KEY_SCAN "synctrace key of comm %u: %16llx%n"   /* sscanf: comm, key, length */
/* Archives recovered before keys had groups of their own: the key named
 * a communicator's member group ("synctrace key " and 16 hex digits). */
#define RF_GROUP_KEY_PREFIX "synctrace key "
#define RF_IN_NEIGHBOURS_FMT "synctrace in-neighbours of comm %u"

/* Cartesian topologies, named as Score-P names them: "MPI_Cartesian_2x2",
 * its dimensions "dimension 0", "dimension 1". */
#define RF_CART_TOPOLOGY_PREFIX "MPI_Cartesian"
#define RF_CART_DIMENSION_FMT "dimension %u"
#define RF_CART_MAX_DIMS 255                   /* OTF2 counts a topology's dimensions in a byte */

/* Communicators the tracer defines first, by name; the others are named by
 * the key the ranks agreed on (src/communicators.c). */
#define RF_COMM_WORLD_NAME "MPI_COMM_WORLD"
#define RF_COMM_SYNC_NAME "synctrace sync"   /* the tracer's duplicate of the world */

/* The tracer's own region, after the MPI ones, and the tag of its messages. */
#define RF_REGION_SYNC_NAME "synctrace: clock synchronisation"
#define RF_SYNC_TAG 7117
/* The tag of background rounds' messages (src/sync_background.c), apart
 * from the collective rounds' so that neither can take the other's. */
#define RF_SYNC_TAG_BACKGROUND 7118

/* ---------- the recovery journal (format: format/recover.c) ---------- */

/* Format 2 has the dense attribute layout and its source_word records;
 * format 1 (older tracers) the world-sized layout, still read. */
#define RF_JOURNAL_FORMAT 2
#define RF_JOURNAL_FORMAT_WORLD_ATTRS 1
#define RF_JOURNAL_MAGIC "synctrace-journal"   /* the first line: MAGIC FORMAT */
/* header records */
#define RF_JR_RANK "rank"
#define RF_JR_WORLD_SIZE "world_size"
#define RF_JR_LOCATION "location"              /* also a record of its own: another thread */
#define RF_JR_CHUNK_SIZE "chunk_size"
#define RF_JR_OPENED_AT "opened_at"
#define RF_JR_TICKS_PER_SECOND "ticks_per_second"
#define RF_JR_TRUE_TIME "true_time"
#define RF_JR_HOST "host"
#define RF_JR_CLOCK "clock"
#define RF_JR_REGION "region"
#define RF_JR_HEADER_END "header_end"
/* records after the header */
#define RF_JR_PROPERTY "property"
#define RF_JR_COMM "comm"                      /* comm REF NAME N @G [key HEX] [self] [remote N @G] */
#define RF_JR_GROUP "group"                    /* group G N MEMBERS: a member list comm records name as @G */
#define RF_JR_COMM_NAME "comm_name"            /* comm_name REF NAME: MPI_Comm_set_name */
#define RF_JR_COMM_KEY "key"                   /* a comm record's optional fields */
#define RF_JR_COMM_SELF "self"
#define RF_JR_COMM_REMOTE "remote"
#define RF_JR_NEIGHBOURS "neighbours"
#define RF_JR_CLOCK_OFFSET "clock_offset"
#define RF_JR_RESOLUTION "resolution"
#define RF_JR_COMM_PARENT "comm_parent"
#define RF_JR_COMM_EVENTS "comm_events"         /* comm_events REF: REF has CommCreate/CommDestroy events */
#define RF_JR_CART "cart"
#define RF_JR_WINDOW "window"
#define RF_JR_WINDOW_NAME "window_name"
#define RF_JR_STARTED_AT "started_at"           /* MPI_Init's Enter, before opened_at: the global offset moves back */
/* source_word K REF: an event carries coll_sources_<K> as attribute REF,
 * the next one of the dense layout; journaled before the event is recorded. */
#define RF_JR_SOURCE_WORD "source_word"

/* ---------- the membership file (format: format/members.h) ---------- */

#define RF_MEMBERS_FORMAT 1
#define RF_MEMBERS_MAGIC "synctrace-members"   /* the first line: MAGIC FORMAT */
#define RF_MB_RANK "rank"                      /* rank R world W */
#define RF_MB_WORLD "world"
#define RF_MB_GROUP "group"                    /* group G N RUNS */
#define RF_MB_COMM "comm"                      /* comm C LOCAL [remote G] [key HEX16] [in N RUNS] */
#define RF_MB_SELF "self"
#define RF_MB_REMOTE "remote"
#define RF_MB_KEY "key"
#define RF_MB_IN "in"
#define RF_MB_END "end"                        /* end K: K comm lines */
#define RF_MEMBERS_MAX_BYTES (1u << 30)        /* a membership file the reader takes */
#define RF_MEMBERS_MAX_COPIES (1u << 26)       /* members its communicators may hold in all */

/* ---------- run.meta: one "key value" per line, written by rank 0 ---------- */

#define RF_META_FORMAT 1
#define RF_META_COMMENT "# synctrace run metadata: one 'key value' per line"
#define RF_META_KEY_FORMAT "format"
#define RF_META_KEY_VERSION "version"
#define RF_META_KEY_RUN_ID "run_id"
#define RF_META_KEY_WORLD_SIZE "world_size"
#define RF_META_KEY_THREAD_LEVEL "thread_level"
#define RF_META_KEY_CLOCK "clock"
#define RF_META_KEY_SYNC "sync"
#define RF_META_KEY_SYNC_INTERVAL_CONFIG "sync.interval_config"
#define RF_META_KEY_BUFFER_BYTES "buffer_bytes"
#define RF_META_KEY_SKEW "skew"
#define RF_META_KEY_STATUS "status"
#define RF_META_KEY_SYNC_EPOCHS "sync.epochs"
#define RF_META_KEY_SYNC_ROUNDS_PER_PEER "sync.rounds_per_peer"
#define RF_META_KEY_SYNC_PEERS "sync.peers"
#define RF_META_KEY_SYNC_TOPOLOGY "sync.topology"
#define RF_META_SYNC_TOPOLOGY_TREE "binomial-tree"   /* rounds walk a binomial tree of clock domains */
#define RF_META_KEY_SYNC_TREE_STEPS "sync.tree_steps"
#define RF_META_KEY_SYNC_EPOCH "sync.epoch"            /* sync.epoch.E.peer.RANK: one tree edge's estimate */
#define RF_META_KEY_SYNC_BACKGROUND "sync.background"  /* sync.background.K.peer.RANK: a background round's, to rank 0 */
#define RF_META_KEY_SYNC_BACKGROUND_ROUNDS "sync.background_rounds"   /* started by rank 0 */
#define RF_META_KEY_SYNC_BACKGROUND_KEPT "sync.background_kept"       /* (domain, round)s precise enough for ClockOffsets */
#define RF_META_KEY_SYNC_INTERVAL_S "sync.interval_s"
#define RF_META_KEY_SYNC_INTERVAL_MODE "sync.interval_mode"
#define RF_META_KEY_CLOCK_DOMAINS "clock.domains"
#define RF_META_KEY_TICKS_PER_SECOND "clock.ticks_per_second"
/* a spawned job's (MPI_Comm_get_parent): "spawned yes", and when its parent
 * said (RF_ENV_PARENT) the parent's run id, intercommunicator key, directory */
#define RF_META_KEY_SPAWNED "spawned"
#define RF_META_KEY_PARENT_RUN_ID "parent.run_id"
#define RF_META_KEY_PARENT_KEY "parent.key"
#define RF_META_KEY_PARENT_DIR "parent.dir"

/* ---------- limits ---------- */

#define RF_MAX_WORLD_SIZE 1000000              /* ranks a run.meta or journal may name */
#define RF_JOURNAL_MAX_REF (1u << 24)          /* a journaled region or communicator */
#define RF_JOURNAL_MAX_MEMBERS (1u << 30)      /* members of one journaled group */
#define RF_JOURNAL_MAX_THREADS (1u << 24)
#define RF_CHUNK_SIZE_MIN 1024                 /* event chunk sizes a journal may give */
#define RF_CHUNK_SIZE_MAX (1u << 24)
#define RF_DEF_CHUNK_SIZE (4 * 1024 * 1024)    /* the tracer's definition chunk size */

#endif
