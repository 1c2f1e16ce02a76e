// A worker thread that burns `jobs` jobs of `iterations` rounds back to back, with no queue around
// them, and reports when done: the ceiling the CPU scenario compares queues with.
import { parentPort, workerData } from 'node:worker_threads';
import { burnCpu } from './burn-cpu.js';

const { iterations, jobs } = workerData as { iterations: number; jobs: number };
let state = 0;
for (let i = 0; i < jobs; i += 1) state ^= burnCpu(iterations);
parentPort?.postMessage(state);
