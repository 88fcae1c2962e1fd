import type { MailPort } from '../../providers/mail/port.js';
import type { SmsPort } from '../../providers/sms/port.js';
import type { VoicePort } from '../../providers/voice/port.js';
import type { Metrics } from './registry.js';

/** Ports already counted: a port shared by two servers of one process is counted once. */
const counted = new WeakSet<object>();

/**
 * The time a UUIDv7 carries (its first 48 bits, ms since the epoch): deliveries get one when
 * they are stored (lib/ids.ts `orderedId`), so a send tells how long its SMS waited with no
 * lookup. Null for any other id.
 */
export function uuidV7Time(id: string): number | null {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i.test(id)) return null;
  return Number.parseInt(id.slice(0, 8) + id.slice(9, 13), 16);
}

/**
 * Counts what the provider ports do, in place: the dispatcher, the escalation and the mailers
 * call the same objects and never know. `onStatus` is wrapped before the alerts feature
 * registers its receipt listener (server/app.ts registers metrics first).
 */
export function instrumentPorts(ports: { sms: SmsPort; voice: VoicePort; mail: MailPort }, metrics: Metrics): void {
  const { sms, voice, mail } = ports;
  if (!counted.has(sms)) {
    counted.add(sms);
    const send = sms.send.bind(sms);
    sms.send = async (message) => {
      try {
        const result = await send(message);
        metrics.smsSends.inc({ outcome: 'handed_over' });
        // The wall clock on both ends, as the id was stamped: the real wait, whatever the app's clock says.
        const stored = uuidV7Time(message.reference);
        if (stored !== null) metrics.pressToSms.observe(Math.max(0, Date.now() - stored) / 1000);
        return result;
      } catch (error) {
        const permanent = (error as { permanent?: unknown } | null)?.permanent === true;
        metrics.smsSends.inc({ outcome: permanent ? 'refused' : 'failed' });
        metrics.providerErrors.inc({ provider: 'sms' });
        throw error;
      }
    };
    const onStatus = sms.onStatus.bind(sms);
    sms.onStatus = (listener) =>
      onStatus((providerMessageId, status, reason) => {
        metrics.smsReceipts.inc({ status });
        listener(providerMessageId, status, reason);
      });
  }
  if (!counted.has(voice)) {
    counted.add(voice);
    const place = voice.place.bind(voice);
    (voice as { place: VoicePort['place'] }).place = async (call) => {
      try {
        const result = await place(call);
        metrics.callPlacements.inc({ outcome: 'placed' });
        return result;
      } catch (error) {
        metrics.callPlacements.inc({ outcome: 'failed' });
        metrics.providerErrors.inc({ provider: 'voice' });
        throw error;
      }
    };
  }
  if (!counted.has(mail)) {
    counted.add(mail);
    const sendMail = mail.send.bind(mail);
    (mail as { send: MailPort['send'] }).send = async (message) => {
      try {
        return await sendMail(message);
      } catch (error) {
        metrics.providerErrors.inc({ provider: 'mail' });
        throw error;
      }
    };
  }
}
