#!/bin/sh
# Runs node with the memory settings of every dbops process: `npm start`, `npm run worker`, the
# container image (scripts/image.sh) and `npm run bench`, whose benches host the service in their own
# process. A data run moves its rows through batches of about a megabyte: these settings give the
# memory those batches used back when the run is done, so a process stays near its idle size between
# runs and grows by a bounded amount during one (docs/production.md, Memory). Each can be overridden
# from the environment. The node on PATH runs (under npm, the project's own Node.js 24).
#
# - MALLOC_ARENA_MAX=2: glibc gives every thread that allocates (the transform threads of an
#   anonymization, libuv's pool) an arena of its own by default, up to 8 per core, and keeps what
#   each arena held after the thread is gone. (A fixed mmap threshold, MALLOC_MMAP_THRESHOLD_,
#   gave batches back at once too, but cost the request path a fifth of its audited writes.)
# - --max-semi-space-size=16: V8's young generation grows to 2 × 64 MiB on a machine with this much
#   memory; rows die young, so 16 MiB halves cost little collection time and about 100 MiB less.
#   (8 MiB saved 30 MiB more but promoted a seed's rows: its CPU went up by half.)
# - --gc-memory-reducer-start-delay-ms=1000: V8 shrinks the heap once allocation stops; by default it
#   waits 8 s, longer than the pause between two runs.
: "${MALLOC_ARENA_MAX:=2}"
export MALLOC_ARENA_MAX
exec node --max-semi-space-size=16 --gc-memory-reducer-start-delay-ms=1000 "$@"
