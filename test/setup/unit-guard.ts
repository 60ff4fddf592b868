/**
 * Set-up file of the unit project: a unit test opens no socket. A file that starts a server belongs in
 * the http project (name it `*.http.test.ts`), so listening fails here with a sentence that says so.
 */
import { Server } from 'node:net';

Server.prototype.listen = function refuse(): never {
  throw new Error(
    'A unit test opened a socket: name the file *.http.test.ts (the http project) or call the app in process.',
  );
};
