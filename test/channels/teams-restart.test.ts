import { restartTests } from './restart-scenarios.js';

// Microsoft Teams: a crash between receiving a webhook and answering it, or between recording a post and sending it.
restartTests('teams');
