/** The test-clocks area's entry: what routers, activities, the worker and other areas use of it. */
export { createTestClockAdvance } from './advance';
export { AdvanceTestClockBody, CreateTestClockBody } from './inputs';
export { createTestClockService } from './service';
