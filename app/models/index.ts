// Every model of the application: the definition registers whatever this file exports, so a new
// model is one file plus one line here.
export { Post } from "./post.ts";
export { User } from "./user.ts";
export { Comment } from "./comment.ts";
export { Tag } from "./tag.ts";
export { PostTag } from "./post-tag.ts";
export { UserFollow } from "./user-follow.ts";
