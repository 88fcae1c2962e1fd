/**
 * Tables of work the server does later: e-mail bursts, and the jobs of the job engine
 * (server/jobs/).
 */

/** Which e-mails go out one per burst: the owner's alert receipts, registration notices, check-in reminders, password resets and contacts' STOPs. */
export type MailBurstKind =
  | 'alert_receipt'
  | 'registration_notice'
  | 'checkin_reminder'
  | 'password_reset'
  | 'contact_opt_out';

/**
 * One row per (kind, address): the e-mails strangers can set off go out one per burst, at most
 * one summary per 10 minutes and a daily cap (features/accounts/mail-bursts.ts, migration
 * 2026112502-mail-receipts). `pending` are events not mailed yet,
 * summarised when the burst's `mail-summary` job is due.
 */
export interface MailBurstsTable {
  id: string;
  kind: MailBurstKind;
  address: string;
  user_id: string;
  last_mail_at: number | null;
  pending: number;
  pending_since: number | null;
  /** Events taken for a summary being sent; a summary taken over after a crash sends them. */
  claimed_count: number;
  claimed_since: number | null;
  day_started_at: number;
  day_count: number;
}

/**
 * One job of the job engine (server/jobs/; migrations 2026112601-timers, 2026112810-job-engine
 * and 2026120706-jobs): at `due_at` the handler of `kind` runs for `subject` (a row id of its
 * feature), in one process, under `lease_until`, renewed while it runs; a job whose process
 * died is taken again when the lease lapses. One job per (kind, subject).
 */
export interface JobsTable {
  id: string;
  kind: string;
  subject: string;
  due_at: number;
  /** Runs started, failed ones included: the retry backoff grows with it. */
  attempts: number;
  lease_until: number | null;
  /** Which run holds the lease (a random id per claim): only that run renews it or removes the row. */
  lease_token: string | null;
  /** Set when the job ran out of attempts: it is kept, not run again, until enqueued anew. */
  failed_at: number | null;
  /** The last failure's message, for the operator. */
  last_error: string | null;
  created_at: number;
}
