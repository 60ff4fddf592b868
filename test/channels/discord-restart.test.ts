import { restartTests } from './restart-scenarios.js';

// Discord: a crash between receiving a webhook and answering it, or between recording a post and sending it.
restartTests('discord');
