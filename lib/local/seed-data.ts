/**
 * What an application's seed declares (app/seed/): its demo users, then records created in order,
 * each through the domain layer as the user who would have written it.
 */
export interface SeedUser {
  /** Fixed, so that seeding twice finds the same users. */
  uuid: string;
  username: string;
  email: string;
  /** Demo credential: set through the authentication service, printed by `npm start`. */
  password: string;
  name: string;
  bio?: string;
  /** Any further fields of the application's identity model. */
  [field: string]: unknown;
}

export interface SeedRecord {
  /** The model's class name (`Post`). */
  model: string;
  /** The uuid of the seed user creating it: the domain's policy and server-set fields see them. */
  as: string;
  /** The client fields, as a POST body would carry them. */
  data: Record<string, unknown>;
  /**
   * For models keyed by a generated uuid, the fields that recognise a record already seeded; the
   * first one must be indexed (a belongs-to foreign key), so the check is a Query, not a Scan.
   */
  identifiedBy?: string[];
}

export interface SeedData {
  users: SeedUser[];
  records: SeedRecord[];
}
