import { isIP, type LookupFunction } from "node:net";

/**
 * A socket lookup that answers with the address the rules already checked: no second DNS answer can
 * steer the connection elsewhere, while the Host header and TLS server name stay the URL's.
 */
export function pinnedLookup(address: string): LookupFunction {
  const family = isIP(address);
  return (_hostname, options, callback) => {
    if (options.all === true) callback(null, [{ address, family }]);
    else callback(null, address, family);
  };
}
