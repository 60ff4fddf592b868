import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app.js';
import { installConsoleCards } from './cards/page-card.js';
import { installConsoleClientTools } from './client-tools.js';
import { serviceWorker } from './service-worker.js';
import './styles.css';
// The frame and the narrow-screen rules, after the pages' styles they adjust.
import './layout.css';
// After the console's page styles, where the card styles have always come: the page's
// :focus-visible ring must not beat a card's own shadow.
import 'heed/react/styles.css';
import './chat/chat-controls.css';

installConsoleClientTools();
installConsoleCards();
// The worker makes the console installable and shows pushed requests; a browser without one just goes on.
void serviceWorker().catch(() => undefined);
createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
