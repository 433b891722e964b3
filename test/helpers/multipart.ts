import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { request } from 'node:http';
import type { HttpResult } from './context';

export interface Part {
  name: string;
  /** Omitted: a plain form field; present (even empty): a file part. */
  filename?: string;
  contentType?: string;
  data: Buffer | string;
}

/** A whole multipart/form-data body in memory, for small uploads and malformed-body cases. */
export function multipartBody(parts: Part[]): { body: Buffer; contentType: string } {
  const boundary = `----commerce-test-${randomBytes(8).toString('hex')}`;
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const disposition = `form-data; name="${part.name}"${part.filename !== undefined ? `; filename="${part.filename}"` : ''}`;
    const type = part.contentType ? `\r\nContent-Type: ${part.contentType}` : '';
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}${type}\r\n\r\n`), Buffer.from(part.data), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

/** POSTs a multipart body held in memory. */
export async function postMultipart(baseUrl: string, path: string, key: string, parts: Part[], headers: Record<string, string> = {}): Promise<HttpResult> {
  const { body, contentType } = multipartBody(parts);
  const response = await fetch(`${baseUrl}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': contentType, ...headers },
    body,
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : null, text };
}

export interface StreamedUpload {
  key: string;
  /** Bytes of the file part; generated on the fly from one reused 1 MiB chunk, never held whole. */
  size: number;
  fileName?: string;
  mimeType?: string;
  headers?: Record<string, string>;
  /** Send this many file bytes, then wait for `gate` before sending the rest. */
  pauseAfter?: number;
  gate?: Promise<void>;
}

/**
 * Streams a multipart upload of `size` bytes over node:http with backpressure. If the server answers before
 * the body is sent (a limit hit mid-stream), sending stops and the response is returned.
 */
export function streamUpload(baseUrl: string, path: string, upload: StreamedUpload): Promise<HttpResult> {
  const boundary = `----commerce-test-${randomBytes(8).toString('hex')}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${upload.fileName ?? 'big.bin'}"\r\n` +
      `Content-Type: ${upload.mimeType ?? 'application/octet-stream'}\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const chunk = Buffer.alloc(1 << 20, 0x61);

  return new Promise((resolve, reject) => {
    let responded = false;
    const req = request(`${baseUrl}${path}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${upload.key}`,
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'content-length': String(head.length + upload.size + tail.length),
        ...upload.headers,
      },
    });
    const response = new Promise<void>((done) => {
      req.on('response', (res) => {
        responded = true;
        done();
        const parts: Buffer[] = [];
        res.on('data', (c: Buffer) => parts.push(c));
        res.on('end', () => {
          const text = Buffer.concat(parts).toString('utf8');
          const headers = new Headers(Object.entries(res.headers).map(([k, v]) => [k, String(v)] as [string, string]));
          resolve({ status: res.statusCode ?? 0, headers, body: text ? JSON.parse(text) : null, text });
          req.destroy();
        });
      });
    });
    req.on('error', (err) => {
      if (!responded) reject(err);
    });

    const send = async () => {
      req.write(head);
      let sent = 0;
      while (sent < upload.size && !responded) {
        if (upload.gate && upload.pauseAfter !== undefined && sent >= upload.pauseAfter) {
          await upload.gate;
          upload = { ...upload, gate: undefined };
        }
        const limit = upload.gate && upload.pauseAfter !== undefined ? upload.pauseAfter : upload.size;
        const n = Math.min(chunk.length, limit - sent);
        const ok = req.write(n === chunk.length ? chunk : chunk.subarray(0, n));
        sent += n;
        if (!ok) await Promise.race([once(req, 'drain'), response]);
      }
      if (!responded) req.end(tail);
    };
    send().catch(reject);
  });
}
