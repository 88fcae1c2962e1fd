// The job engine (README.md): what the rest of the server uses of it.
export { createJobs } from './engine.js';
export {
  cancelJob,
  enqueue,
  enqueueMany,
  heldBy,
  type JobInput,
  jobDueAt,
  jobRow,
  jobsInsert,
} from './enqueue.js';
export { JOB_KINDS, type JobKind, jobKindNames, kindSettings } from './kinds.js';
export type { ClaimedAtWrite, DueJob, JobHandler, Jobs, JobsOptions, KindHooks, KindSettings } from './types.js';
