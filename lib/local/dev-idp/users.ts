/**
 * The local provider's demo users. They cover the cases an application meets with a real issuer:
 * a verified email in the hosted domain, an email the provider does not vouch for, another Google
 * Workspace-style domain, and an email outside the sample's allowed domains.
 */
export interface DemoUser {
  username: string;
  password: string;
  sub: string;
  email: string;
  email_verified: boolean;
  name: string;
  /** Google's hosted-domain claim; absent for a consumer account. */
  hd?: string;
}

export const DEMO_PASSWORD = "demo";

export const DEMO_USERS: readonly DemoUser[] = [
  { username: "alice", password: DEMO_PASSWORD, sub: "demo-alice", email: "alice@example.com", email_verified: true, name: "Alice Demo", hd: "example.com" },
  { username: "bob", password: DEMO_PASSWORD, sub: "demo-bob", email: "bob@example.com", email_verified: false, name: "Bob Demo", hd: "example.com" },
  { username: "carol", password: DEMO_PASSWORD, sub: "demo-carol", email: "carol@example.com", email_verified: true, name: "Carol Demo" },
  {
    username: "mallory",
    password: DEMO_PASSWORD,
    sub: "demo-mallory",
    email: "mallory@elsewhere.example",
    email_verified: true,
    name: "Mallory Demo",
    hd: "example.com",
  },
];

export function findDemoUser(username: string): DemoUser | undefined {
  return DEMO_USERS.find((u) => u.username === username.trim().toLowerCase());
}

export function demoUserBySub(sub: string): DemoUser | undefined {
  return DEMO_USERS.find((u) => u.sub === sub);
}
