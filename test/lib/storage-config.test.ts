import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ConfigError, loadConfig } from '../../lib/config';
import { createStorage } from '../../lib/storage';
import { configProblems } from '../helpers/config';

const S3 = { FILE_STORAGE: 's3', S3_BUCKET: 'commerce-files', S3_REGION: 'eu-central-1' };

describe('blob storage configuration', () => {
  it('defaults to local disk under FILE_STORAGE_DIR (DATA_DIR/files)', async () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ FILE_STORAGE: 'local', FILE_STORAGE_DIR: '.data/files', S3_FORCE_PATH_STYLE: false });
    const root = await mkdtemp(path.join(tmpdir(), 'storage-config-'));
    try {
      createStorage(loadConfig({ FILE_STORAGE_DIR: root }));
      // The local backend made its temporary directory: the factory chose it.
      expect(await readdir(root)).toEqual(['.partial']);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });

  it('takes S3 with a bucket and a region; an endpoint and path-style addressing for S3-compatible servers', () => {
    expect(configProblems(S3)).toEqual([]);
    const config = loadConfig({ ...S3, S3_ENDPOINT: 'http://127.0.0.1:8333', S3_FORCE_PATH_STYLE: 'true', AWS_ACCESS_KEY_ID: 'id', AWS_SECRET_ACCESS_KEY: 'secret' });
    expect(config).toMatchObject({ FILE_STORAGE: 's3', S3_BUCKET: 'commerce-files', S3_REGION: 'eu-central-1', S3_ENDPOINT: 'http://127.0.0.1:8333', S3_FORCE_PATH_STYLE: true });
    // Credentials stay with the AWS chain; they are not configuration of ours.
    expect(config).not.toHaveProperty('AWS_SECRET_ACCESS_KEY');
    expect(typeof createStorage(config).put).toBe('function');
  });

  it.each([
    [{ FILE_STORAGE: 'gcs' }, 'FILE_STORAGE'],
    [{ FILE_STORAGE: 's3', S3_REGION: 'eu-central-1' }, 'S3_BUCKET'],
    [{ FILE_STORAGE: 's3', S3_BUCKET: 'commerce-files' }, 'S3_REGION'],
    [{ ...S3, S3_BUCKET: 's3://commerce-files' }, 'S3_BUCKET'],
    [{ ...S3, S3_BUCKET: 'commerce-files/uploads' }, 'S3_BUCKET'],
    [{ ...S3, S3_REGION: 'Frankfurt' }, 'S3_REGION'],
    [{ ...S3, S3_ENDPOINT: 'minio:9000' }, 'S3_ENDPOINT'],
    [{ ...S3, S3_FORCE_PATH_STYLE: 'yes' }, 'S3_FORCE_PATH_STYLE'],
    [{ ...S3, AWS_ACCESS_KEY_ID: 'id' }, 'AWS_SECRET_ACCESS_KEY'],
    [{ ...S3, AWS_SECRET_ACCESS_KEY: 'secret' }, 'AWS_ACCESS_KEY_ID'],
    // Without FILE_STORAGE=s3 these would leave every file on one host's disk, unnoticed.
    [{ S3_BUCKET: 'commerce-files', S3_REGION: 'eu-central-1' }, 'FILE_STORAGE'],
  ])('refuses %j naming %s', (env, name) => {
    const problems = configProblems(env);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(new RegExp(`^${name}: `));
  });

  it('names both missing S3 variables at once', () => {
    expect(configProblems({ FILE_STORAGE: 's3' }).map((p) => p.split(':')[0])).toEqual(['S3_BUCKET', 'S3_REGION']);
  });

  it('refuses to build an S3 storage from a configuration without its bucket', () => {
    expect(() => createStorage({ FILE_STORAGE: 's3', FILE_STORAGE_DIR: '/unused', S3_REGION: 'us-east-1' })).toThrow(ConfigError);
  });
});
