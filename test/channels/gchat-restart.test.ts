import { restartTests } from './restart-scenarios.js';

// Google Chat: a crash between receiving a webhook and answering it, or between recording a post and sending it.
restartTests('gchat');
