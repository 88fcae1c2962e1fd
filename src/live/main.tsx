import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { LivePage } from './LivePage';
import '../alert/alert.css';
import './live.css';

// `/a/{public_id}`: the link in the alert SMS. No login, no router, no service worker.
const publicId = decodeURIComponent(window.location.pathname.split('/')[2] ?? '');

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <LivePage publicId={publicId} />
  </StrictMode>,
);
