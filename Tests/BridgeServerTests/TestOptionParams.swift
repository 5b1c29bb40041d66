import JSONRPC

/// `configure`'s params on the embedded demo with `options` merged in.
func configureParams(_ directory: String, options extra: JSONObject) -> JSONValue {
    guard case .object(var params) = configureParams(directory), case .object(var options)? = params["options"] else {
        return configureParams(directory)
    }
    for (key, value) in extra { options[key] = value }
    params["options"] = .object(options)
    return .object(params)
}
