export { createFakeClock, type FakeClock, type CreateFakeClockOptions } from './fake-clock.js';
export { createSeededRandom } from '../clock.js';
