// DynamoDB Local accepts any credentials but rejects keys with symbols, and `-sharedDb` makes the
// key and region irrelevant to which database is seen; everything local (npm start, the webda
// command's --local) uses these.
export const LOCAL_REGION = "us-east-1";
export const LOCAL_CREDENTIALS = { accessKeyId: "local", secretAccessKey: "local" } as const;
