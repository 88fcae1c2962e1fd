import twilio from 'twilio';

/**
 * Checks Twilio's X-Twilio-Signature: an HMAC of the URL Twilio was given and every form
 * field, keyed by the auth token. The SMS and voice adapters' callbacks both use it, and both
 * adapters' client comes from `twilioClient`.
 */
export function twilioSignatureCheck(authToken: string) {
  return ({ url, headers, form }: { url: string; headers: Record<string, unknown>; form: Record<string, string> }) => {
    const signature = headers['x-twilio-signature'];
    return typeof signature === 'string' && twilio.validateRequest(authToken, signature, url, form);
  };
}

/** The SDK's client as both adapters use it: 20 s per request unless told, two retries; `httpClient` for a local fake in tests. */
export function twilioClient(options: {
  accountSid: string;
  authToken: string;
  httpClient?: InstanceType<typeof twilio.RequestClient>;
  timeoutMs?: number;
}) {
  return twilio(options.accountSid, options.authToken, {
    ...(options.httpClient ? { httpClient: options.httpClient } : {}),
    timeout: options.timeoutMs ?? 20_000,
    autoRetry: true,
    maxRetries: 2,
  });
}
