// The emergency page's parts that its countdown and the alert's send do not need, with their
// strings and styles: loaded once the page has drawn its countdown (later-load.ts), and
// precached like the rest.
import './later.css';

export { CheckinPanel } from './checkin/CheckinPanel';
export { DailyOk } from './DailyOk';
export { LivePanel } from './LivePanel';
export { OpenAlerts } from './OpenAlerts';
export { OwnerSignIn } from './SignIn';
export { messageText } from './sms-message';
