export { TackleError, isTackleError, errorMessage } from "./tackle-error.js";
