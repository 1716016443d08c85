/**
 * The resource object's alarm as its rooms see it: the shell (resource-object.ts) owns the alarm API and lends
 * them these two moves, so no other module touches the object's state.
 */
export interface AlarmClock {
  /** Wakes the object at `at` at the latest (an earlier alarm already set stands). */
  wakeBy(at: number): Promise<void>;
  /** Moves the alarm to what is actually due next (runner work ended). */
  rearm(): Promise<void>;
}
