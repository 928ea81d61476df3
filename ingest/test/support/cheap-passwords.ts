import { hashNewPasswordsCheaply } from '../../src/resources/users/passwords.js';

// The API suite hashes hundreds of dashboard passwords in process: at a cost of milliseconds
// rather than a third of a second each (ingest/src/resources/users/passwords.ts).
hashNewPasswordsCheaply();
