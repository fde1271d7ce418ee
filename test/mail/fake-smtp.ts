/**
 * A local SMTP server for tests, faithful to RFC 5321's exchange: greeting, EHLO (multi-line, advertising AUTH PLAIN,
 * and STARTTLS when given a certificate), STARTTLS (RFC 3207: the same connection goes on over TLS, with the
 * self-signed certificate of test/fixtures/tls), AUTH PLAIN, MAIL FROM, RCPT TO, DATA (to the lone dot) and QUIT.
 * Answers can be scripted (a temporary 451 or a permanent 550 at MAIL FROM); every accepted message is recorded, with
 * whether it came over TLS. Served by node:net on 127.0.0.1; nothing touches the internet.
 */
import { readFileSync } from "node:fs";
import { createServer, type Socket } from "node:net";
import { join } from "node:path";
import { TLSSocket } from "node:tls";

/** A message the server accepted. */
export interface ReceivedMail {
  from: string;
  to: string[];
  /** The DATA as sent (headers and body). */
  data: string;
  /** Whether the client authenticated, as whom. */
  user?: string;
  /** Whether the message came over TLS (after STARTTLS). */
  tls: boolean;
}

export interface FakeSmtp {
  port: number;
  received: ReceivedMail[];
  /** Answers for the next MAIL FROM commands, in order (then 250 again). */
  failNext(codes: number[]): void;
  stop(): void;
}

/**
 * Starts the server. `auth` (user, password): MAIL FROM needs AUTH first. `starttls`: STARTTLS is offered (and, with
 * `required`, MAIL FROM needs it).
 */
export function startFakeSmtp(o: { auth?: { user: string; pass: string }; starttls?: "offered" | "required"; refuse?: string[]; injectAfterStartTls?: boolean } = {}): Promise<FakeSmtp> {
  const received: ReceivedMail[] = [];
  const failures: number[] = [];
  const tlsFiles = join(import.meta.dir, "..", "fixtures", "tls");
  const server = createServer((raw: Socket) => {
    let s: Socket | TLSSocket = raw;
    const st = { buf: "", inData: false, data: "", from: "", to: [] as string[], user: undefined as string | undefined, tls: false };
    const onData = (chunk: Buffer) => {
      st.buf += chunk.toString("utf8");
      let at: number;
      while ((at = st.buf.indexOf("\r\n")) >= 0) {
        const line = st.buf.slice(0, at);
        st.buf = st.buf.slice(at + 2);
        if (st.inData) {
          if (line === ".") {
            st.inData = false;
            received.push({ from: st.from, to: st.to, data: st.data, tls: st.tls, ...(st.user ? { user: st.user } : {}) });
            st.to = [];
            st.data = "";
            s.write("250 2.0.0 queued\r\n");
          } else st.data += `${line.startsWith("..") ? line.slice(1) : line}\r\n`;
          continue;
        }
        const cmd = line.toUpperCase();
        if (cmd.startsWith("EHLO")) s.write(`250-fake.smtp.test\r\n250-8BITMIME\r\n${o.starttls && !st.tls ? "250-STARTTLS\r\n" : ""}250 AUTH PLAIN\r\n`);
        else if (cmd === "STARTTLS" && o.starttls && !st.tls) {
          // A man in the middle's trick: replies sent in the clear that a careless client reads as the TLS session's.
          s.write(o.injectAfterStartTls ? "220 2.0.0 ready to start TLS\r\n250 fake\r\n" : "220 2.0.0 ready to start TLS\r\n");
          raw.removeListener("data", onData);
          s = new TLSSocket(raw, { isServer: true, key: readFileSync(join(tlsFiles, "key.pem")), cert: readFileSync(join(tlsFiles, "cert.pem")) });
          s.on("data", onData);
          s.on("error", () => undefined);
          st.tls = true;
        } else if (cmd.startsWith("AUTH PLAIN ")) {
          const [, user, pass] = Buffer.from(line.slice(11), "base64").toString("utf8").split("\0");
          if (o.auth && user === o.auth.user && pass === o.auth.pass) {
            st.user = user;
            s.write("235 2.7.0 ok\r\n");
          } else s.write("535 5.7.8 bad credentials\r\n");
        } else if (cmd.startsWith("MAIL FROM:")) {
          const code = failures.shift();
          if (code) s.write(`${code} ${code >= 500 ? "5.1.0 refused for good" : "4.3.0 try again later"}\r\n`);
          else if (o.starttls === "required" && !st.tls) s.write("530 5.7.0 must issue STARTTLS first\r\n");
          else if (o.auth && !st.user) s.write("530 5.7.0 authentication required\r\n");
          else {
            st.from = line.slice(10).replace(/[<>]/g, "");
            s.write("250 2.1.0 ok\r\n");
          }
        } else if (cmd.startsWith("RCPT TO:")) {
          const to = line.slice(8).replace(/[<>]/g, "");
          if (o.refuse?.includes(to)) s.write("550 5.1.1 no such user\r\n");
          else {
            st.to.push(to);
            s.write("250 2.1.5 ok\r\n");
          }
        } else if (cmd === "DATA") {
          st.inData = true;
          s.write("354 end with <CRLF>.<CRLF>\r\n");
        } else if (cmd === "QUIT") {
          s.write("221 2.0.0 bye\r\n");
          s.end();
        } else s.write("502 5.5.2 unknown command\r\n");
      }
    };
    raw.on("data", onData);
    raw.on("error", () => undefined);
    raw.write("220 fake.smtp.test ESMTP ready\r\n");
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as { port: number }).port;
      resolve({ port, received, failNext: (codes) => failures.push(...codes), stop: () => server.close() });
    }),
  );
}

/** The body of a recorded message, decoded (crawlbox sends it base64, UTF-8). */
export function mailBody(m: ReceivedMail): string {
  const [, body = ""] = m.data.split("\r\n\r\n");
  return Buffer.from(body.replace(/\r\n/g, ""), "base64").toString("utf8");
}

/** One header of a recorded message: its folded lines joined, its RFC 2047 encoded words decoded (and joined). */
export function mailHeader(m: ReceivedMail, name: string): string | undefined {
  const head = m.data.split("\r\n\r\n")[0]!.replace(/\r\n[ \t]+/g, " ");
  const line = head.split("\r\n").find((l) => l.toLowerCase().startsWith(`${name.toLowerCase()}:`));
  if (!line) return undefined;
  const v = line.slice(name.length + 1).trim();
  // Whitespace between two encoded words is not part of the text (RFC 2047 §6.2).
  return v.replace(/\?=\s+=\?/g, "?==?").replace(/=\?UTF-8\?B\?([^?]*)\?=/g, (_, b64: string) => Buffer.from(b64, "base64").toString("utf8"));
}
