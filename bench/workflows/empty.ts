/** The ceiling's unit of work: a workflow that starts and completes with no activity and no timer. */
export async function emptyWorkflow(): Promise<void> {}
