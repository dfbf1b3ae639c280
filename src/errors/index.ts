export { TackleError, isTackleError, errorMessage, type TackleErrorCode } from "./tackle-error.js";
