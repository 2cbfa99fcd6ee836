import type { Adapter, AdapterFactory, AdapterPayload } from "oidc-provider";

interface Entry {
  payload: AdapterPayload;
  expiresAt: number;
}

/**
 * The development provider's storage: its sessions, grants and codes live as long as `npm start`
 * does, which is all a local sign-in needs. Written out rather than left to oidc-provider's own
 * in-memory default, which prints a warning on every start telling production users to replace it.
 */
export function memoryAdapter(): AdapterFactory {
  const entries = new Map<string, Entry>();
  const live = (key: string): AdapterPayload | undefined => {
    const entry = entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= Date.now()) {
      entries.delete(key);
      return undefined;
    }
    return entry.payload;
  };
  return (model: string): Adapter => {
    const key = (id: string): string => `${model}:${id}`;
    const findBy = (field: "uid" | "userCode", value: string): AdapterPayload | undefined => {
      for (const [k, entry] of entries) {
        if (k.startsWith(`${model}:`) && entry.payload[field] === value) return live(k);
      }
      return undefined;
    };
    return {
      upsert: async (id, payload, expiresIn) => {
        entries.set(key(id), { payload, expiresAt: expiresIn ? Date.now() + expiresIn * 1000 : Number.POSITIVE_INFINITY });
      },
      find: async (id) => live(key(id)),
      findByUid: async (uid) => findBy("uid", uid),
      findByUserCode: async (userCode) => findBy("userCode", userCode),
      consume: async (id) => {
        const payload = live(key(id));
        if (payload) payload.consumed = Math.floor(Date.now() / 1000);
      },
      destroy: async (id) => {
        entries.delete(key(id));
      },
      revokeByGrantId: async (grantId) => {
        for (const [k, entry] of entries) if (entry.payload.grantId === grantId) entries.delete(k);
      },
    };
  };
}
