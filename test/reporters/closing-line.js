// eslint-disable-next-line @typescript-eslint/no-require-imports -- Jest loads reporters as CommonJS
const { writeFileSync } = require('node:fs');

/**
 * Prints the run's counts as one plain closing line ("jest: N passed, N failed, N skipped"), in the form CI tools
 * read in any language; Jest's "Tests: N passed, N total" is not one of them. Jest's own summary and its
 * force-exit notice still follow it, so with JEST_CLOSING_LINE_FILE set the line is also written there for
 * .ci/run to print last.
 */
class ClosingLineReporter {
  onRunComplete(_contexts, results) {
    const skipped = results.numPendingTests + results.numTodoTests;
    // A file that fails outside its tests (an afterAll, such as the declared-statuses check) counts as one failure.
    const failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
    const line = `jest: ${results.numPassedTests} passed, ${failed} failed, ${skipped} skipped\n`;
    process.stdout.write(line);
    if (process.env.JEST_CLOSING_LINE_FILE) writeFileSync(process.env.JEST_CLOSING_LINE_FILE, line);
  }
}

module.exports = ClosingLineReporter;
