import { ConfigError, loadConfig } from '../../lib/config';

/** The problems loadConfig reports for `env` (empty when it is valid). */
export function configProblems(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  return [];
}
