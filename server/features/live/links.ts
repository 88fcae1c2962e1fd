/** The live page of an alert, as the SMS carries it: `{APP_URL}/a/{public_id}`. */
export const livePageUrl = (appUrl: string, publicId: string): string => `${appUrl}/a/${publicId}`;
