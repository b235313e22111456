/**
 * The outbox sealing of tests that build a mail queue and a sender by hand (a server builds its own from its
 * `credentialsKey`): one fixed key, fresh IVs.
 */
import { mailSealing } from '../../src/store/sealed-mail.js';
import type { MailSealing } from '../../src/store/sealed-mail.js';

/** Seal and open under one test key, for `MailQueue.seal` and the sender's `open`. */
export const TEST_MAIL_SEALING: MailSealing = mailSealing(new Uint8Array(32).fill(7), (n) => crypto.getRandomValues(new Uint8Array(n)));
