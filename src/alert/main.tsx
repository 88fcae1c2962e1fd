import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import '../i18n';
import { AlertPage } from './AlertPage';
import '../styles.css';

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <AlertPage />
  </StrictMode>,
);
