/**
 * @module mail/smtp
 * Sends one message through the operator's mail relay (`CRAWLBOX_SMTP_URL`), over SMTP (RFC 5321): `smtp://` (port 25
 * by default; STARTTLS when the relay offers it, and required with `?starttls=required`) or `smtps://` (implicit TLS,
 * port 465), with `AUTH PLAIN` when the URL carries a user. Like the LLM provider and SearXNG, the relay is the
 * operator's own service, reached without the egress gate. One connection per message; every step has a deadline.
 */
import { connect as netConnect, isIP, type Socket } from "node:net";
import { connect as tlsConnect, type TLSSocket } from "node:tls";

/** Where and how to send. */
export interface SmtpSettings {
  url: string;
  from: string;
  /** The whole exchange's time limit. @default 30000 */
  timeoutMs?: number;
}

/** One plain-text message. */
export interface MailMessage {
  to: string[];
  subject: string;
  text: string;
}

/** The relay refused or failed; `permanent` for a 5xx answer (trying again will not help). */
export class SmtpError extends Error {
  constructor(
    message: string,
    readonly permanent: boolean,
  ) {
    super(message);
  }
}

/** Reads SMTP replies (multi-line ones whole) from a socket. */
class Replies {
  private buffer = "";
  private waiting?: (line: string) => void;
  private queue: string[] = [];
  private current: string[] = [];
  constructor(socket: Socket | TLSSocket) {
    this.attach(socket);
  }
  attach(socket: Socket | TLSSocket): void {
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => {
      this.buffer += chunk;
      let at: number;
      while ((at = this.buffer.indexOf("\r\n")) >= 0) {
        const line = this.buffer.slice(0, at);
        this.buffer = this.buffer.slice(at + 2);
        this.current.push(line);
        // "250-…" continues a reply, "250 …" ends it.
        if (line.length < 4 || line[3] !== "-") {
          const reply = this.current.join("\n");
          this.current = [];
          if (this.waiting) {
            const w = this.waiting;
            this.waiting = undefined;
            w(reply);
          } else this.queue.push(reply);
        }
      }
    });
  }
  next(): Promise<string> {
    const r = this.queue.shift();
    if (r !== undefined) return Promise.resolve(r);
    return new Promise((resolve) => (this.waiting = resolve));
  }
}

const headerSafe = (s: string) => s.replace(/[\r\n]+/g, " ");
/** RFC 2047 encoding of a header value that is not plain ASCII. */
const encodeHeader = (s: string) => (/^[\x20-\x7e]*$/.test(s) ? s : `=?UTF-8?B?${Buffer.from(s, "utf8").toString("base64")}?=`);

/** The message as sent after DATA: headers, the body (base64, UTF-8), dot-stuffing and the final dot. */
function messageData(from: string, m: MailMessage, host: string): string {
  const body = Buffer.from(m.text, "utf8").toString("base64").replace(/.{1,76}/g, "$&\r\n");
  const headers = [
    `From: ${headerSafe(from)}`,
    `To: ${m.to.map(headerSafe).join(", ")}`,
    `Subject: ${encodeHeader(headerSafe(m.subject))}`,
    `Date: ${new Date().toUTCString()}`,
    `Message-ID: <${crypto.randomUUID()}@${host}>`,
    "MIME-Version: 1.0",
    "Content-Type: text/plain; charset=utf-8",
    "Content-Transfer-Encoding: base64",
    "Auto-Submitted: auto-generated",
  ];
  return `${headers.join("\r\n")}\r\n\r\n${body}.\r\n`;
}

/** Sends `message` through the relay of `settings`; throws {@link SmtpError}. */
export async function sendMail(settings: SmtpSettings, message: MailMessage): Promise<void> {
  const url = new URL(settings.url);
  const implicitTls = url.protocol === "smtps:";
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const port = Number(url.port || (implicitTls ? 465 : 25));
  const startTls = url.searchParams.get("starttls") ?? "auto";
  const rejectUnauthorized = url.searchParams.get("tls_verify") !== "false";
  // SNI names a host, never an address.
  const sni = isIP(host) ? {} : { servername: host };
  let socket: Socket | TLSSocket = implicitTls ? tlsConnect({ host, port, ...sni, rejectUnauthorized }) : netConnect({ host, port });
  const replies = new Replies(socket);
  const failure = new Promise<never>((_, reject) => {
    const timer = setTimeout(() => reject(new SmtpError(`the mail relay did not finish within ${settings.timeoutMs ?? 30_000} ms`, false)), settings.timeoutMs ?? 30_000);
    timer.unref?.();
    const onError = (e: Error) => reject(new SmtpError(`the mail relay could not be reached: ${e.message}`, false));
    socket.on("error", onError);
    socket.on("close", () => reject(new SmtpError("the mail relay closed the connection", false)));
  });
  failure.catch(() => undefined);
  const expect = async (codes: number[], what: string): Promise<string> => {
    const reply = await Promise.race([replies.next(), failure]);
    const code = Number(reply.slice(0, 3));
    if (!codes.includes(code)) throw new SmtpError(`the mail relay answered ${what} with: ${reply.split("\n")[0]!.slice(0, 200)}`, code >= 500);
    return reply;
  };
  const send = (line: string) => socket.write(`${line}\r\n`);
  const me = "crawlbox";
  try {
    await expect([220], "the connection");
    send(`EHLO ${me}`);
    let ehlo = await expect([250], "EHLO");
    if (!implicitTls && startTls !== "off" && (/\bSTARTTLS\b/i.test(ehlo) || startTls === "required")) {
      send("STARTTLS");
      await expect([220], "STARTTLS");
      const plain = socket as Socket;
      plain.removeAllListeners("data");
      socket = tlsConnect({ socket: plain, ...sni, rejectUnauthorized });
      socket.on("error", () => undefined);
      replies.attach(socket);
      await Promise.race([new Promise<void>((resolve) => (socket as TLSSocket).once("secureConnect", () => resolve())), failure]);
      send(`EHLO ${me}`);
      ehlo = await expect([250], "EHLO after STARTTLS");
    }
    if (url.username) {
      const user = decodeURIComponent(url.username);
      const pass = decodeURIComponent(url.password);
      send(`AUTH PLAIN ${Buffer.from(`\0${user}\0${pass}`, "utf8").toString("base64")}`);
      await expect([235], "AUTH");
    }
    send(`MAIL FROM:<${headerSafe(settings.from).replace(/^.*<|>.*$/g, "")}>`);
    await expect([250], "MAIL FROM");
    for (const to of message.to) {
      send(`RCPT TO:<${headerSafe(to)}>`);
      await expect([250, 251], `RCPT TO ${to}`);
    }
    send("DATA");
    await expect([354], "DATA");
    // No line of it starts with a dot (headers do not, base64 cannot), so nothing needs stuffing.
    socket.write(messageData(settings.from, message, me));
    await expect([250], "the message");
    send("QUIT");
  } finally {
    socket.end();
  }
}
