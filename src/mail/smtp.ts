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
  /** Extra headers (List-Unsubscribe), ASCII. */
  headers?: Record<string, string>;
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

/** Longest reply (all its lines) read from the relay; a longer one is an error. */
const MAX_REPLY_CHARS = 64 * 1024;

/** Reads SMTP replies (multi-line ones whole) from a socket, bounded. */
class Replies {
  private buffer = "";
  private waiting?: (line: string) => void;
  private queue: string[] = [];
  private current: string[] = [];
  private currentChars = 0;
  /** Set when the relay sent more than a reply may hold. */
  overflow = false;
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
        this.currentChars += line.length;
        // "250-…" continues a reply, "250 …" ends it.
        if (line.length < 4 || line[3] !== "-") {
          const reply = this.current.join("\n");
          this.current = [];
          this.currentChars = 0;
          if (this.waiting) {
            const w = this.waiting;
            this.waiting = undefined;
            w(reply);
          } else this.queue.push(reply);
        }
      }
      if (this.buffer.length + this.currentChars > MAX_REPLY_CHARS) {
        this.overflow = true;
        socket.destroy(new Error(`the relay sent a reply of more than ${MAX_REPLY_CHARS} characters`));
      }
    });
  }
  /** Whether anything was received that no command asked for yet (after STARTTLS's 220 there must be nothing). */
  pending(): boolean {
    return this.buffer !== "" || this.queue.length > 0 || this.current.length > 0;
  }
  next(): Promise<string> {
    const r = this.queue.shift();
    if (r !== undefined) return Promise.resolve(r);
    return new Promise((resolve) => (this.waiting = resolve));
  }
}

const headerSafe = (s: string) => s.replace(/[\r\n]+/g, " ");
/** RFC 2047 encoding of a header value that is not plain ASCII, in encoded words of at most 75 characters. */
function encodeHeader(s: string): string {
  if (/^[\x20-\x7e]*$/.test(s)) return s;
  const words: string[] = [];
  let chunk = "";
  for (const ch of s) {
    // 45 bytes of UTF-8 make 60 characters of base64: with "=?UTF-8?B?" and "?=", 72.
    if (Buffer.byteLength(chunk + ch, "utf8") > 45) {
      words.push(chunk);
      chunk = "";
    }
    chunk += ch;
  }
  if (chunk) words.push(chunk);
  return words.map((w) => `=?UTF-8?B?${Buffer.from(w, "utf8").toString("base64")}?=`).join("\r\n ");
}

/** The message as sent after DATA: headers (long ones folded), the body (base64, UTF-8) and the final dot. */
function messageData(from: string, m: MailMessage, host: string): string {
  const body = Buffer.from(m.text, "utf8").toString("base64").replace(/.{1,76}/g, "$&\r\n");
  const headers = [
    `From: ${headerSafe(from)}`,
    `To: ${m.to.map(headerSafe).join(",\r\n ")}`,
    `Subject: ${encodeHeader(headerSafe(m.subject))}`,
    `Date: ${new Date().toUTCString()}`,
    `Message-ID: <${crypto.randomUUID()}@${host}>`,
    "MIME-Version: 1.0",
    "Content-Type: text/plain; charset=utf-8",
    "Content-Transfer-Encoding: base64",
    "Auto-Submitted: auto-generated",
    ...Object.entries(m.headers ?? {}).map(([k, v]) => `${k.replace(/[^A-Za-z0-9-]/g, "")}: ${headerSafe(v)}`),
  ];
  return `${headers.join("\r\n")}\r\n\r\n${body}.\r\n`;
}

/** The EHLO name: the connection's own address as an address literal (a relay may refuse a bare word). */
function ehloName(socket: Socket | TLSSocket): string {
  const a = socket.localAddress ?? "127.0.0.1";
  return isIP(a) === 6 ? `[IPv6:${a}]` : `[${a}]`;
}

/**
 * Sends `message` through the relay of `settings`; throws {@link SmtpError}. Recipients the relay refuses for good
 * are left out (and named in {@link SendResult}); the message fails only when it refuses them all.
 */
export async function sendMail(settings: SmtpSettings, message: MailMessage): Promise<SendResult> {
  const url = new URL(settings.url);
  const implicitTls = url.protocol === "smtps:";
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const port = Number(url.port || (implicitTls ? 465 : 25));
  const startTls = url.searchParams.get("starttls") ?? "auto";
  const rejectUnauthorized = url.searchParams.get("tls_verify") !== "false";
  // SNI names a host, never an address.
  const sni = isIP(host) ? {} : { servername: host };
  const timeoutMs = settings.timeoutMs ?? 30_000;
  let socket: Socket | TLSSocket = implicitTls ? tlsConnect({ host, port, ...sni, rejectUnauthorized }) : netConnect({ host, port });
  let encrypted = implicitTls;
  const replies = new Replies(socket);
  let timer: ReturnType<typeof setTimeout> | undefined;
  let fail: (e: SmtpError) => void = () => undefined;
  const failure = new Promise<never>((_, reject) => {
    fail = reject;
    timer = setTimeout(() => reject(new SmtpError(`the mail relay did not finish within ${timeoutMs} ms`, false)), timeoutMs);
  });
  failure.catch(() => undefined);
  const watch = (s: Socket | TLSSocket) => {
    s.on("error", (e: Error) => fail(new SmtpError(`the mail relay connection failed: ${e.message}`, false)));
    s.on("close", () => fail(new SmtpError("the mail relay closed the connection", false)));
  };
  watch(socket);
  const expect = async (codes: number[], what: string): Promise<string> => {
    const reply = await Promise.race([replies.next(), failure]);
    const code = Number(reply.slice(0, 3));
    if (!codes.includes(code)) throw new SmtpError(`the mail relay answered ${what} with: ${reply.split("\n")[0]!.slice(0, 200)}`, code >= 500);
    return reply;
  };
  const send = (line: string) => socket.write(`${line}\r\n`);
  let done = false;
  try {
    await expect([220], "the connection");
    const me = ehloName(socket);
    send(`EHLO ${me}`);
    const ehlo = await expect([250], "EHLO");
    if (!implicitTls && startTls !== "off" && (/\bSTARTTLS\b/i.test(ehlo) || startTls === "required")) {
      send("STARTTLS");
      await expect([220], "STARTTLS");
      // Anything the relay sent before the handshake was not asked for: trusting it would let a man in the middle
      // answer for the encrypted session (the STARTTLS command-injection class of attacks).
      if (replies.pending()) throw new SmtpError("the mail relay sent data after its STARTTLS answer, before the handshake", false);
      const plain = socket as Socket;
      plain.removeAllListeners("data");
      plain.removeAllListeners("close");
      plain.removeAllListeners("error");
      plain.on("error", () => undefined);
      socket = tlsConnect({ socket: plain, ...sni, rejectUnauthorized });
      watch(socket);
      replies.attach(socket);
      await Promise.race([new Promise<void>((resolve) => (socket as TLSSocket).once("secureConnect", () => resolve())), failure]);
      encrypted = true;
      send(`EHLO ${me}`);
      await expect([250], "EHLO after STARTTLS");
    }
    if (url.username) {
      // The password goes over TLS only, unless the URL says plainly that the relay has none.
      if (!encrypted && startTls !== "off") {
        throw new SmtpError("the mail relay offered no STARTTLS, and its password is not sent unencrypted (add ?starttls=off to CRAWLBOX_SMTP_URL to allow it)", true);
      }
      const user = decodeURIComponent(url.username);
      const pass = decodeURIComponent(url.password);
      send(`AUTH PLAIN ${Buffer.from(`\0${user}\0${pass}`, "utf8").toString("base64")}`);
      await expect([235], "AUTH");
    }
    send(`MAIL FROM:<${headerSafe(settings.from).replace(/^.*<|>.*$/g, "")}>`);
    await expect([250], "MAIL FROM");
    const refused: string[] = [];
    for (const to of message.to) {
      send(`RCPT TO:<${headerSafe(to)}>`);
      try {
        await expect([250, 251], `RCPT TO ${to}`);
      } catch (e) {
        // One address refused for good does not keep the message from the others.
        if (!(e instanceof SmtpError && e.permanent)) throw e;
        refused.push(to);
      }
    }
    if (refused.length === message.to.length) throw new SmtpError(`the mail relay refused every recipient (${refused.join(", ")})`, true);
    send("DATA");
    await expect([354], "DATA");
    // No line of it starts with a dot (headers do not, base64 cannot), so nothing needs stuffing.
    socket.write(messageData(settings.from, message, me));
    await expect([250], "the message");
    send("QUIT");
    done = true;
    return { refused };
  } catch (e) {
    if (replies.overflow) throw new SmtpError("the mail relay sent an answer too long to be one", false);
    throw e;
  } finally {
    clearTimeout(timer);
    // A clean end after QUIT; anything else is cut at once, so no connection is left waiting on the relay.
    if (done) socket.end();
    else socket.destroy();
  }
}

/** What a sent message did not reach. */
export interface SendResult {
  /** Recipients the relay refused for good. */
  refused: string[];
}
