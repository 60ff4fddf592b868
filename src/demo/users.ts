/** A person the demo signs in as. */
export interface DemoUser {
  userId: string;
  /** How the console names them ("Try as Ada"). */
  name: string;
}

/** The demo's people: each finds the other's four-eyes refunds in their inbox. */
export const demoUsers: readonly DemoUser[] = Object.freeze([
  { userId: 'ada', name: 'Ada' },
  { userId: 'grace', name: 'Grace' },
]);
