// V8 settings of every dbops process, imported first by the process entry (main.ts) and by the
// benches that build the service in their own process, so they measure what runs.
//
// External memory (Buffers: every row batch a copy or an anonymization moves, about its data's
// size three or four times over between the socket, the batches and the transform workers) by
// default starts a full garbage collection of the whole service heap every 64 MB of it: twice a
// second during a copy, each marking the service's ~70 MB of live objects on V8's helper threads
// (0.7 s of CPU per million rows copied, measured in bench/anonymize.ts). Counted in the heap's
// global limit instead, it makes a collection due when the heap and the buffers together have
// grown by the usual factor: half that CPU, the same bounded memory.
import v8 from 'node:v8';


