import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** One mail kept by a capture. */
export interface CapturedMail {
  /** The recipient `notify.email.to` named. */
  to: string;
  subject: string;
  /** The answer page the mail links to (its plain link, with no choice picked), when it has one. */
  page?: string;
  /** The .eml file it was written to. */
  file: string;
}

/** The few fields of nodemailer's mail object a transport plugin reads. */
interface PluginMail {
  data: { to?: unknown; subject?: unknown; text?: unknown; messageId?: unknown };
  message: { build(callback: (error: Error | null, raw: Buffer) => void): void };
}

/**
 * A nodemailer transport that sends nothing: each mail is written to `dir` as an .eml file (openable in
 * any mail program) and reported to `onMail`. For the demo and for trying a config's mail without an SMTP
 * server (`heed serve --mail-capture <dir>`). The files hold answer links, which answer as their
 * recipient: the folder is made readable by its owner only.
 */
export function mailCapture(options: { dir: string; onMail?: (mail: CapturedMail) => void }): Record<string, unknown> {
  let made = false;
  let count = 0;
  return {
    name: 'heed-mail-capture',
    version: '1',
    send(mail: PluginMail, callback: (error: Error | null, info?: unknown) => void) {
      mail.message.build((error, raw) => {
        if (error) return callback(error);
        try {
          if (!made) mkdirSync(options.dir, { recursive: true, mode: 0o700 });
          made = true;
          const to = String(mail.data.to ?? '');
          const subject = String(mail.data.subject ?? '');
          const stamp = new Date().toISOString().replace(/[:.]/g, '-');
          const file = join(options.dir, `${stamp}-${String(++count).padStart(3, '0')}-${safe(to)}.eml`);
          // nodemailer leaves out a recipient that is not an address (the demo mails user ids): say who it was for.
          const text = raw.toString('utf8');
          const headed = /^To:/im.test(text.split(/\r?\n\r?\n/)[0])
            ? text
            : `To: ${to.replace(/[\r\n]/g, ' ')}\r\n${text}`;
          writeFileSync(file, headed, { mode: 0o600 });
          const page = /(https?:\/\/\S+\/a\/[A-Za-z0-9_-]+)(?=\s|$)/m.exec(String(mail.data.text ?? ''))?.[1];
          options.onMail?.({ to, subject, ...(page ? { page } : {}), file });
          callback(null, { envelope: { to: [to] }, messageId: mail.data.messageId });
        } catch (thrown) {
          callback(thrown instanceof Error ? thrown : new Error(String(thrown)));
        }
      });
    },
  };
}

/** A recipient as part of a file name. */
function safe(to: string): string {
  return to.replace(/[^A-Za-z0-9@._-]+/g, '_').slice(0, 60) || 'nobody';
}
