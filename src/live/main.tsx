import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { contactKeyOf } from './api';
import { LivePage } from './LivePage';
import '../alert/alert.css';
import './live.css';

// `/a/{public_id}`: the link in the alert SMS. No login, no router, no service worker.
const publicId = decodeURIComponent(window.location.pathname.split('/')[2] ?? '');
// `?c={key}`: the contact's own link from their SMS, so their "on my way" always counts.
const contactKey = contactKeyOf(window.location.search);

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <LivePage publicId={publicId} contactKey={contactKey} />
  </StrictMode>,
);
