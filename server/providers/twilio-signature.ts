import twilio from 'twilio';

/**
 * Checks Twilio's X-Twilio-Signature: an HMAC of the URL Twilio was given and every form
 * field, keyed by the auth token. The SMS and voice adapters' callbacks both use it.
 */
export function twilioSignatureCheck(authToken: string) {
  return ({ url, headers, form }: { url: string; headers: Record<string, unknown>; form: Record<string, string> }) => {
    const signature = headers['x-twilio-signature'];
    return typeof signature === 'string' && twilio.validateRequest(authToken, signature, url, form);
  };
}
