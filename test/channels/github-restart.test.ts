import { restartTests } from './restart-scenarios.js';

// GitHub: a crash between receiving a webhook and answering it, or between recording a post and sending it.
restartTests('github');
