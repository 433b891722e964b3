import type { IncomingMessage } from 'node:http';
import { pipeline, Transform } from 'node:stream';
import busboy from 'busboy';
import type { Sequelize } from 'sequelize';
import { lockAccount } from '../../db/locks';
import { Product, ProductFile, type ProductFileSource } from '../../db/models';
import { fileRowReferences, storageUsed, storageUsedForLiveProduct } from '../../db/product-files';
import { tenantWhere } from '../../db/tenancy';
import { AppError, notFound, quotaExceeded, validationError } from '../../lib/errors';
import { newId } from '../../lib/ids';
import { planLimits } from '../../lib/plan-limits';
import { productFileKey, type BlobStorage } from '../../lib/storage';
import type { AuthContext } from '../auth-context';
import type { ServiceDeps } from '../service-deps';
import { recordStart, startRecordedNow } from '../workflow-starts';
import { emitProductUpdated, storefrontOf, toFileDto } from './dto';
import { FileName, MAX_FILE_SIZE, type RegisterFileBody } from './inputs';

const tooLarge = () => new AppError('FILE_TOO_LARGE', `The file is larger than ${MAX_FILE_SIZE} bytes`);

const storageQuotaExceeded = (auth: AuthContext, limit: number) =>
  quotaExceeded(`The ${auth.account.plan} plan allows ${limit} bytes of file storage; delete files or upgrade`);

interface StoredUpload {
  fileName: string;
  mimeType: string | null;
  storageKey: string;
  size: number;
}

/**
 * A browser form's fields ahead of its file part (the dashboard's CSRF token): seen by `check` before a byte of
 * the file is stored, or once the body is over when it has no file part; a throw refuses the whole upload.
 */
export interface LeadingFields {
  check(fields: Record<string, string>): void;
}

/** Fields of a browser form besides its file: a handful of short values (tokens), never content. */
const LEADING_FIELDS = { count: 5, bytes: 1024 };

/**
 * Streams the one `file` part of a multipart body into storage, never holding it in memory. Past
 * `MAX_FILE_SIZE` (busboy's fileSize limit) it is 400 FILE_TOO_LARGE and past `quota.bytes` 403 QUOTA_EXCEEDED,
 * both detected while the bytes arrive; any failure leaves no blob behind. The rest of an abandoned body is
 * read and discarded, so the error reaches the client and the connection stays usable. Other fields are refused,
 * unless `leading` takes the ones that come before the file.
 */
async function receiveUpload(
  req: IncomingMessage,
  storage: BlobStorage,
  quota: { bytes: number; error: () => AppError },
  keyFor: (fileName: string) => string,
  leading?: LeadingFields,
): Promise<StoredUpload> {
  let parser: busboy.Busboy;
  try {
    // busboy reports `limit` on reaching fileSize, so one byte more: a file of exactly MAX_FILE_SIZE is allowed.
    const fields = leading ? { fields: LEADING_FIELDS.count, fieldSize: LEADING_FIELDS.bytes } : { fields: 0 };
    parser = busboy({ headers: req.headers, defParamCharset: 'utf8', limits: { files: 1, ...fields, fileSize: MAX_FILE_SIZE + 1 } });
  } catch (err) {
    throw validationError(`Malformed multipart/form-data request: ${(err as Error).message}`);
  }

  let stored: Promise<StoredUpload> | undefined;
  let failure: Error | undefined;
  const fields: Record<string, string> = {};
  let checked = false;
  /** Runs `leading.check` once; false (the upload aborted) when it refuses. */
  let checkFields = (): boolean => true;
  const parsed = new Promise<void>((resolve, reject) => {
    const abort = (err: Error) => {
      if (failure) return;
      failure = err;
      req.unpipe(parser);
      parser.destroy();
      req.resume();
      reject(err);
    };
    const onePart = () => abort(validationError('Send exactly one part: the file, named "file"', [{ field: 'file', message: 'exactly one file part' }]));
    checkFields = () => {
      if (!leading || checked) return failure === undefined;
      checked = true;
      try {
        leading.check(fields);
        return true;
      } catch (err) {
        abort(err as Error);
        return false;
      }
    };

    parser.on('file', (name, file, info) => {
      if (!checkFields()) {
        file.on('error', () => undefined).resume();
        return;
      }
      // The same rule as a registered file's fileName: buyers see it, so no controls or bidi spoofing.
      const fileName = FileName.safeParse(info.filename);
      if (name !== 'file' || !fileName.success) {
        // Drained and dropped; busboy fails it when the parse is cut short, which is expected here.
        file.on('error', () => undefined).resume();
        abort(
          name !== 'file'
            ? validationError(`Unknown form part "${name}"; send the file as "file"`, [{ field: name, message: 'unknown part' }])
            : validationError('The file part needs a file name of 1 to 255 characters without control or bidirectional formatting characters', [
                { field: 'file', message: 'file name' },
              ]),
        );
        return;
      }
      let received = 0;
      const guard = new Transform({
        transform(chunk: Buffer, _encoding, callback) {
          received += chunk.length;
          callback(received > quota.bytes ? quota.error() : null, chunk);
        },
      });
      file.on('limit', () => guard.destroy(tooLarge()));
      // Errors either way: a broken part fails the write, a refused write stops the part. Settled through `stored`.
      pipeline(file, guard, () => undefined);
      const storageKey = keyFor(fileName.data);
      const upload = storage.put(storageKey, guard).then(({ size }) => ({ fileName: fileName.data, mimeType: info.mimeType || null, storageKey, size }));
      upload.catch(abort);
      stored = upload;
    });
    parser.on('field', (name: string, value: string, info: busboy.FieldInfo) => {
      // Only the fields before the file, whole: one after it, or cut at the size limit, is not a form of ours.
      if (!leading || stored || checked || info.valueTruncated || info.nameTruncated) return onePart();
      fields[name] = value;
    });
    parser.on('fieldsLimit', onePart);
    parser.on('filesLimit', onePart);
    parser.on('error', (err: Error) => abort(validationError(`Malformed multipart/form-data body: ${err.message}`)));
    parser.on('close', resolve);
  });
  // A client that goes away mid-upload fails the part, which removes the partial blob.
  req.on('close', () => {
    if (!req.complete) parser.destroy(new Error('the connection closed before the upload finished'));
  });
  req.pipe(parser);

  try {
    await parsed;
    // A form without a file part is checked too: its refusal (a missing token) comes before "no file".
    if (!checkFields()) throw failure;
    if (!stored) throw validationError('The form has no file part named "file"', [{ field: 'file', message: 'required' }]);
    const upload = await stored;
    if (upload.size === 0) throw validationError('The file is empty', [{ field: 'file', message: 'empty' }]);
    return upload;
  } catch (err) {
    // Whatever reached storage before the form turned out bad goes again.
    await stored?.then((upload) => storage.remove(upload.storageKey), () => undefined);
    throw failure ?? err;
  }
}

export function createProductFileService({ sequelize, storage, starters, config, logger }: Pick<ServiceDeps, 'sequelize' | 'storage' | 'starters' | 'config' | 'logger'>) {
  /**
   * Inserts the row under the account lock, re-checking the storage quota there (uploads stream without a
   * lock, so two may each have fitted alone), and emits product.updated in the same transaction.
   */
  async function attach(auth: AuthContext, productId: string, file: { fileName: string; fileSize: number; mimeType: string | null; storageKey: string; source: ProductFileSource }) {
    const tenant = tenantWhere(auth);
    return sequelize.transaction(async (tx) => {
      const product = await Product.findOne({ where: { id: productId, ...tenant, archived: false }, attributes: ['id'], lock: tx.LOCK.UPDATE, transaction: tx });
      if (!product) throw notFound('Product');
      await lockAccount(tx, auth.accountId);
      const limit = planLimits(auth.account.plan).storageBytes;
      if ((await storageUsed(sequelize, tx, tenant)) + file.fileSize > limit) throw storageQuotaExceeded(auth, limit);
      const row = await ProductFile.create({ id: newId('file'), ...tenant, productId, ...file }, { transaction: tx });
      await emitProductUpdated(tx, tenant, storefrontOf(auth, config), productId);
      return toFileDto(row);
    });
  }

  return {
    /** multipart/form-data: streams the `file` part to storage, then records it; `leading`: a browser form's fields before it. */
    async upload(auth: AuthContext, productId: string, req: IncomingMessage, leading?: LeadingFields) {
      const tenant = tenantWhere(auth);
      // Before reading a byte: a missing product is 404 at once, and the remaining quota bounds the stream.
      const used = await storageUsedForLiveProduct(sequelize, tenant, productId);
      if (used === undefined) throw notFound('Product');
      const limit = planLimits(auth.account.plan).storageBytes;
      const remaining = limit - used;
      if (remaining <= 0) throw storageQuotaExceeded(auth, limit);
      const upload = await receiveUpload(
        req,
        storage,
        { bytes: remaining, error: () => storageQuotaExceeded(auth, limit) },
        (fileName) => productFileKey(auth.accountId, productId, fileName),
        leading,
      );
      try {
        return await attach(auth, productId, { fileName: upload.fileName, fileSize: upload.size, mimeType: upload.mimeType, storageKey: upload.storageKey, source: 'upload' });
      } catch (err) {
        await storage.remove(upload.storageKey).catch((removeErr: unknown) => logger.error({ err: removeErr, storageKey: upload.storageKey }, 'could not remove a refused upload'));
        throw err;
      }
    },

    /** JSON: records a file hosted elsewhere; it has a storage key of the same shape but no blob of ours. */
    async register(auth: AuthContext, productId: string, body: RegisterFileBody) {
      if (body.fileSize > MAX_FILE_SIZE) throw tooLarge();
      return attach(auth, productId, {
        fileName: body.fileName,
        fileSize: body.fileSize,
        mimeType: body.mimeType ?? null,
        storageKey: productFileKey(auth.accountId, productId, body.fileName),
        source: 'external',
      });
    },

    /**
     * The row goes at once; an uploaded blob is removed by `file-cleanup:<fileId>` after FILE_CLEANUP_DELAY.
     * Its start is recorded in the same transaction (domain/workflow-starts.ts), so it happens exactly when the
     * deletion commits, whenever Temporal answers; it is tried at once after the commit.
     * Allowed on archived products too, so their storage can still be freed.
     */
    async remove(auth: AuthContext, productId: string, fileId: string): Promise<void> {
      const tenant = tenantWhere(auth);
      const cleanup = await sequelize.transaction(async (tx) => {
        const product = await Product.findOne({ where: { id: productId, ...tenant }, attributes: ['id'], lock: tx.LOCK.UPDATE, transaction: tx });
        if (!product) throw notFound('Product');
        const file = await ProductFile.findOne({ where: { id: fileId, productId, ...tenant }, transaction: tx });
        if (!file) throw notFound('File');
        await file.destroy({ transaction: tx });
        await emitProductUpdated(tx, tenant, storefrontOf(auth, config), productId);
        if (file.source !== 'upload') return null;
        return recordStart(tx, tenant, { workflowType: 'fileCleanup', input: { fileId: file.id, storageKey: file.storageKey, delayMs: config.FILE_CLEANUP_DELAY } });
      });
      if (cleanup) await startRecordedNow({ sequelize, starters, logger }, cleanup);
    },
  };
}

export type ProductFileService = ReturnType<typeof createProductFileService>;

/**
 * The file-cleanup workflow's step: removes a deleted file's blob. Keeps it while a row still points at it (the
 * deleting transaction did not commit). Idempotent: a blob already gone is success.
 */
export async function removeDeletedFileBlob(
  { sequelize, storage }: { sequelize: Sequelize; storage: BlobStorage },
  file: { fileId: string; storageKey: string },
): Promise<'removed' | 'kept'> {
  if (await fileRowReferences(sequelize, file)) return 'kept';
  await storage.remove(file.storageKey);
  return 'removed';
}
