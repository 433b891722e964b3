import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  AbortMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  ListMultipartUploadsCommand,
  NoSuchKey,
  NoSuchUpload,
  paginateListParts,
  S3Client,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { assertValidKey, type BlobStorage } from './blob-storage';

export interface S3StorageOptions {
  bucket: string;
  region: string;
  /** An S3-compatible server's address; unset = AWS's own endpoint for the region. */
  endpoint?: string;
  /** `<endpoint>/<bucket>/<key>` instead of `<bucket>.<endpoint>/<key>`: most S3-compatible servers need it. */
  forcePathStyle?: boolean;
}

/**
 * Multipart parts of S3's minimum size, two in flight: an upload holds about four parts (the two being sent, the
 * one filling and the remainder of the last read), ~25 MiB whatever the file's size. 500 MB is 96 parts of the
 * 10,000 S3 allows.
 */
export const PART_SIZE = 5 * 1024 * 1024;
const PARTS_IN_FLIGHT = 2;

/** The client for `options`, credentials from the standard AWS chain (environment, shared files, instance role). */
export function createS3Client(options: S3StorageOptions): S3Client {
  // Each download in progress holds a socket for as long as the buyer reads; SDK's default of 50 would queue every
  // other blob request of the process behind 50 slow downloads.
  const agent = { keepAlive: true, maxSockets: 1024 };
  return new S3Client({
    region: options.region,
    endpoint: options.endpoint,
    forcePathStyle: options.forcePathStyle ?? false,
    requestHandler: { connectionTimeout: 10_000, httpAgent: new HttpAgent(agent), httpsAgent: new HttpsAgent(agent) },
  });
}

/**
 * Blobs as objects in one bucket, under their keys as they are. A write is a multipart upload that S3 makes
 * visible only when completed (a small one is a single PutObject), so a reader never sees half an object. Give the
 * service a bucket of its own: the sweep aborts any multipart upload in it left untouched.
 */
export function createS3Storage(options: S3StorageOptions, client: S3Client = createS3Client(options)): BlobStorage {
  const Bucket = options.bucket;

  /** When an unfinished upload last received data: its newest part, or its start when it has none. */
  async function lastTouched(Key: string, UploadId: string, initiated: Date): Promise<Date> {
    let newest = initiated;
    for await (const page of paginateListParts({ client }, { Bucket, Key, UploadId })) {
      for (const part of page.Parts ?? []) if (part.LastModified && part.LastModified > newest) newest = part.LastModified;
    }
    return newest;
  }

  return {
    async put(key, body) {
      assertValidKey(key);
      let size = 0;
      const counter = new Transform({
        transform(chunk: Buffer, _encoding, callback) {
          size += chunk.length;
          callback(null, chunk);
        },
      });
      // A failing body destroys `counter` with its error, which fails the upload; a failing upload destroys
      // `counter`, which stops the body. Either way it settles through `upload.done()`.
      pipeline(body, counter).catch(() => undefined);
      const upload = new Upload({ client, params: { Bucket, Key: key, Body: counter }, partSize: PART_SIZE, queueSize: PARTS_IN_FLIGHT });
      try {
        // On failure Upload aborts the multipart upload, so its parts go too; one it cannot abort is swept later.
        await upload.done();
      } catch (err) {
        counter.destroy();
        throw err;
      }
      return { size };
    },

    async open(key) {
      assertValidKey(key);
      try {
        // The object is open once its headers arrived: S3 serves a GET that has started to its end, removed or not.
        const object = await client.send(new GetObjectCommand({ Bucket, Key: key }));
        if (!(object.Body instanceof Readable)) throw new Error(`S3 answered GetObject for ${key} without a stream`);
        return { body: object.Body, size: object.ContentLength ?? 0 };
      } catch (err) {
        if (err instanceof NoSuchKey) return null;
        throw err;
      }
    },

    async remove(key) {
      assertValidKey(key);
      // S3 answers 204 whether or not the key existed.
      await client.send(new DeleteObjectCommand({ Bucket, Key: key }));
    },

    async sweepAbandonedWrites(before) {
      let removed = 0;
      let KeyMarker: string | undefined;
      let UploadIdMarker: string | undefined;
      do {
        const page = await client.send(new ListMultipartUploadsCommand({ Bucket, KeyMarker, UploadIdMarker }));
        for (const { Key, UploadId, Initiated } of page.Uploads ?? []) {
          if (!Key || !UploadId || !Initiated || Initiated >= before) continue;
          if ((await lastTouched(Key, UploadId, Initiated)) >= before) continue;
          try {
            await client.send(new AbortMultipartUploadCommand({ Bucket, Key, UploadId }));
            removed += 1;
          } catch (err) {
            // Completed or aborted meanwhile: nothing left to do.
            if (!(err instanceof NoSuchUpload)) throw err;
          }
        }
        ({ NextKeyMarker: KeyMarker, NextUploadIdMarker: UploadIdMarker } = page);
        if (!page.IsTruncated) break;
      } while (KeyMarker);
      return removed;
    },
  };
}
