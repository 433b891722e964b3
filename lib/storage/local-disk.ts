import { randomUUID } from 'node:crypto';
import { createWriteStream, mkdirSync } from 'node:fs';
import { mkdir, open, readdir, rename, rm, rmdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { assertValidKey, type BlobStorage } from './blob-storage';

const TEMP_DIR = '.partial';

/**
 * Blobs as files under `root` (FILE_STORAGE_DIR). A write goes to a temporary name in `root/.partial` (same
 * filesystem) and is renamed into place when complete, so a reader never sees half a file.
 */
export function createLocalDiskStorage(root: string): BlobStorage {
  const base = path.resolve(root);
  const temps = path.join(base, TEMP_DIR);
  // Created once, up front: put() then attaches to the body without an await in between.
  mkdirSync(temps, { recursive: true });

  function locate(key: string): string {
    assertValidKey(key, [TEMP_DIR]);
    return path.join(base, ...key.split('/'));
  }

  return {
    async put(key, body) {
      const target = locate(key);
      const temp = path.join(temps, randomUUID());
      const out = createWriteStream(temp, { flags: 'wx' });
      try {
        await pipeline(body, out);
        await mkdir(path.dirname(target), { recursive: true });
        await rename(temp, target);
      } catch (err) {
        // The pipeline settles on the first error, which can be before the temporary file has even been
        // opened; removing it before the stream has closed could precede its creation and leave it behind.
        if (!out.closed) {
          const closed = new Promise<void>((resolve) => out.once('close', () => resolve()));
          out.destroy();
          await closed;
        }
        await rm(temp, { force: true });
        throw err;
      }
      return { size: out.bytesWritten };
    },

    async open(key) {
      const handle = await open(locate(key), 'r').catch((err: NodeJS.ErrnoException) => {
        if (err.code === 'ENOENT' || err.code === 'ENOTDIR') return null;
        throw err;
      });
      if (!handle) return null;
      try {
        const info = await handle.stat();
        // A key naming a directory (an upload's ULID folder) names no blob.
        if (!info.isFile()) {
          await handle.close();
          return null;
        }
        return { body: handle.createReadStream(), size: info.size };
      } catch (err) {
        await handle.close();
        throw err;
      }
    },

    async remove(key) {
      const target = locate(key);
      await rm(target, { force: true });
      // Each upload has its own ULID directory; drop it once empty so deleted files leave no trace.
      await rmdir(path.dirname(target)).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== 'ENOENT' && err.code !== 'ENOTEMPTY') throw err;
      });
    },

    async sweepAbandonedWrites(before) {
      let removed = 0;
      for (const name of await readdir(temps)) {
        const temp = path.join(temps, name);
        // Gone meanwhile (its write finished or failed): nothing to do.
        const info = await stat(temp).catch(() => undefined);
        if (info && info.mtime < before) {
          await rm(temp, { force: true });
          removed += 1;
        }
      }
      return removed;
    },
  };
}
