/**
 * Prints the run's counts as one plain closing line ("jest: N passed, N failed, N skipped") after Jest's own
 * summary, in the form CI tools read in any language; Jest's "Tests: N passed, N total" is not one of them.
 */
class ClosingLineReporter {
  onRunComplete(_contexts, results) {
    const skipped = results.numPendingTests + results.numTodoTests;
    // A file that fails outside its tests (an afterAll, such as the declared-statuses check) counts as one failure.
    const failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
    process.stdout.write(`jest: ${results.numPassedTests} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}

module.exports = ClosingLineReporter;
