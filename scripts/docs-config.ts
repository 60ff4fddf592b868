// Rewrites the config tables of docs/http.md from the options' shapes (src/config-docs.ts).
import { readFileSync, writeFileSync } from 'node:fs';
import '../src/channels/chat-sdk/platforms.js'; // registers the chat platforms' config shapes
import { withConfigTables } from '../src/config-docs.js';

const path = new URL('../docs/http.md', import.meta.url);
const before = readFileSync(path, 'utf8');
const after = withConfigTables(before);
if (after !== before) writeFileSync(path, after);
console.log(after === before ? 'docs/http.md: config tables up to date' : 'docs/http.md: config tables rewritten');
