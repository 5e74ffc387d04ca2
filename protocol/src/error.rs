//! Kafka's error codes as one typed table: [`ErrorCode`], every code of Kafka 4.4's
//! `org.apache.kafka.common.protocol.Errors`, with Kafka's name, whether Kafka's exception for it
//! is retriable, and a short description of our own; and [`KafkaError`], any `i16` error code
//! read from the wire, known to the table or not.
//!
//! Responses carry error codes as plain `i16` fields (`error_code`); convert with
//! [`ErrorCode::code`] / `i16::from` on the way out and [`ErrorCode::from_code`] /
//! [`KafkaError::from`] on the way in.
//!
//! ```
//! use kwire_protocol::error::{ErrorCode, KafkaError};
//!
//! let code: i16 = ErrorCode::UnknownMemberId.code();
//! assert_eq!(code, 25);
//! assert_eq!(ErrorCode::from_code(25), Some(ErrorCode::UnknownMemberId));
//! assert_eq!(ErrorCode::UnknownMemberId.to_string(), "UNKNOWN_MEMBER_ID (25)");
//! assert!(ErrorCode::NotCoordinator.is_retriable());
//!
//! // A code this table does not know (a newer broker) is kept as it is.
//! let e = KafkaError::from(999);
//! assert_eq!(e.known(), None);
//! assert_eq!(i16::from(e), 999);
//! assert_eq!(KafkaError::check(0), Ok(()));
//! ```
//!
//! # Names
//!
//! The variant of a Kafka name is that name in CamelCase, word by word, with nothing dropped:
//! `UNKNOWN_MEMBER_ID` is [`ErrorCode::UnknownMemberId`], `INVALID_TOPIC_EXCEPTION` is
//! [`ErrorCode::InvalidTopicException`], `NONE` is [`ErrorCode::None`]. [`ErrorCode::name`] gives
//! Kafka's name back, and [`ErrorCode::from_name`] goes the other way.
//!
//! # Where the facts come from
//!
//! Codes, names and retriable flags are those of Kafka 4.4.0's `Errors` enum (kafka-clients
//! 4.4.0): a code is retriable when the exception Kafka maps it to extends
//! `org.apache.kafka.common.errors.RetriableException` (a client may retry the same request,
//! possibly after refreshing metadata or looking up the coordinator). The descriptions are
//! kwire's own. Codes that newer Kafka versions add are not variants until this table is updated
//! (the enum is `#[non_exhaustive]`); [`KafkaError`] carries them meanwhile.

use std::fmt;

/// ", retriable" in a variant's doc line when the code is retriable.
macro_rules! retriable_note {
    (true) => {
        ", retriable"
    };
    (false) => {
        ""
    };
}

/// Defines [`ErrorCode`] and its lookups from one table. Each row:
/// `Variant = code, "KAFKA_NAME", retriable, "description";`.
macro_rules! error_codes {
    ($($variant:ident = $code:literal, $name:literal, $retriable:tt, $desc:literal;)*) => {
        /// One of Kafka's error codes (Kafka 4.4's `Errors`; see the [module docs](self)).
        ///
        /// The discriminant is the wire value: `ErrorCode::X as i16 == ErrorCode::X.code()`.
        /// `Debug` prints Kafka's name (`NONE`, `UNKNOWN_MEMBER_ID`), so that
        /// `ErrorCode::from_code(0)` shows as `Some(NONE)`, not `Some(None)`; `Display` adds the
        /// code (`NONE (0)`).
        #[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(i16)]
        #[non_exhaustive]
        pub enum ErrorCode {
            $(
                #[doc = concat!("`", $name, "` (", stringify!($code), retriable_note!($retriable), "): ", $desc)]
                $variant = $code,
            )*
        }

        impl ErrorCode {
            /// Every code, in ascending order of [`ErrorCode::code`].
            pub const ALL: &'static [ErrorCode] = &[$(ErrorCode::$variant),*];

            /// The code for a wire value; `None` for a value this table does not know.
            pub const fn from_code(code: i16) -> Option<ErrorCode> {
                match code {
                    $($code => Some(ErrorCode::$variant),)*
                    _ => Option::None,
                }
            }

            /// The variant's own name (`"UnknownMemberId"`), for the test of the naming rule.
            #[cfg(test)]
            const fn variant_name(self) -> &'static str {
                match self {
                    $(ErrorCode::$variant => stringify!($variant),)*
                }
            }

            /// Kafka's name of the code (`"UNKNOWN_MEMBER_ID"`), as in Kafka's `Errors` enum.
            pub const fn name(self) -> &'static str {
                match self {
                    $(ErrorCode::$variant => $name,)*
                }
            }

            /// Whether Kafka treats the error as retriable: its exception extends
            /// `RetriableException`, so a client may send the request again (after refreshing
            /// metadata or finding the coordinator again, where that applies). `false` for
            /// [`ErrorCode::None`].
            pub const fn is_retriable(self) -> bool {
                match self {
                    $(ErrorCode::$variant => $retriable,)*
                }
            }

            /// A one-sentence description of what the code means (kwire's words).
            pub const fn description(self) -> &'static str {
                match self {
                    $(ErrorCode::$variant => $desc,)*
                }
            }
        }
    };
}

error_codes! {
    UnknownServerError = -1, "UNKNOWN_SERVER_ERROR", false,
        "The server hit a failure it has no specific code for.";
    None = 0, "NONE", false,
        "No error: the operation succeeded.";
    OffsetOutOfRange = 1, "OFFSET_OUT_OF_RANGE", false,
        "The requested offset is before the log start or past the log end of the partition.";
    CorruptMessage = 2, "CORRUPT_MESSAGE", true,
        "A record or batch failed its CRC check, is too short, or is otherwise damaged.";
    UnknownTopicOrPartition = 3, "UNKNOWN_TOPIC_OR_PARTITION", true,
        "The broker does not host this topic or partition.";
    InvalidFetchSize = 4, "INVALID_FETCH_SIZE", false,
        "The fetch asked for a negative or otherwise unusable number of bytes.";
    LeaderNotAvailable = 5, "LEADER_NOT_AVAILABLE", true,
        "The partition has no leader at the moment (for example during an election).";
    NotLeaderOrFollower = 6, "NOT_LEADER_OR_FOLLOWER", true,
        "The request went to a broker that is neither the partition's leader nor one of its followers.";
    RequestTimedOut = 7, "REQUEST_TIMED_OUT", true,
        "The request did not complete within its timeout.";
    BrokerNotAvailable = 8, "BROKER_NOT_AVAILABLE", false,
        "The broker addressed is not reachable or not running.";
    ReplicaNotAvailable = 9, "REPLICA_NOT_AVAILABLE", true,
        "The replica expected on this broker is not there.";
    MessageTooLarge = 10, "MESSAGE_TOO_LARGE", false,
        "A record or batch is bigger than the largest size the server accepts.";
    StaleControllerEpoch = 11, "STALE_CONTROLLER_EPOCH", false,
        "The request carries a controller epoch older than the current controller's.";
    OffsetMetadataTooLarge = 12, "OFFSET_METADATA_TOO_LARGE", false,
        "The metadata string attached to a committed offset is longer than allowed.";
    NetworkException = 13, "NETWORK_EXCEPTION", true,
        "The connection to the server broke before an answer arrived.";
    CoordinatorLoadInProgress = 14, "COORDINATOR_LOAD_IN_PROGRESS", true,
        "The coordinator is still loading its state; try again shortly.";
    CoordinatorNotAvailable = 15, "COORDINATOR_NOT_AVAILABLE", true,
        "No coordinator is available for this key right now.";
    NotCoordinator = 16, "NOT_COORDINATOR", true,
        "This broker is not the coordinator for the group or transaction; look it up again.";
    InvalidTopicException = 17, "INVALID_TOPIC_EXCEPTION", false,
        "The topic name is not legal, or the topic may not be used this way.";
    RecordListTooLarge = 18, "RECORD_LIST_TOO_LARGE", false,
        "A produce request's batch for one partition exceeds the segment size.";
    NotEnoughReplicas = 19, "NOT_ENOUGH_REPLICAS", true,
        "Fewer in-sync replicas than required, so the write was refused.";
    NotEnoughReplicasAfterAppend = 20, "NOT_ENOUGH_REPLICAS_AFTER_APPEND", true,
        "The write reached the log but fewer in-sync replicas than required acknowledged it.";
    InvalidRequiredAcks = 21, "INVALID_REQUIRED_ACKS", false,
        "The produce request's acks is not -1, 0 or 1.";
    IllegalGeneration = 22, "ILLEGAL_GENERATION", false,
        "The generation id sent does not match the group's current generation.";
    InconsistentGroupProtocol = 23, "INCONSISTENT_GROUP_PROTOCOL", false,
        "The member's protocol type or protocols do not fit those of the group.";
    InvalidGroupId = 24, "INVALID_GROUP_ID", false,
        "The group id is empty or otherwise not acceptable.";
    UnknownMemberId = 25, "UNKNOWN_MEMBER_ID", false,
        "The group does not know this member id.";
    InvalidSessionTimeout = 26, "INVALID_SESSION_TIMEOUT", false,
        "The session timeout is outside the range the broker allows.";
    RebalanceInProgress = 27, "REBALANCE_IN_PROGRESS", false,
        "The group is rebalancing; the member has to rejoin.";
    InvalidCommitOffsetSize = 28, "INVALID_COMMIT_OFFSET_SIZE", false,
        "The offset commit's data has a size the broker cannot accept.";
    TopicAuthorizationFailed = 29, "TOPIC_AUTHORIZATION_FAILED", false,
        "The principal may not access the topic.";
    GroupAuthorizationFailed = 30, "GROUP_AUTHORIZATION_FAILED", false,
        "The principal may not access the group.";
    ClusterAuthorizationFailed = 31, "CLUSTER_AUTHORIZATION_FAILED", false,
        "The principal may not perform this cluster-level operation.";
    InvalidTimestamp = 32, "INVALID_TIMESTAMP", false,
        "A record's timestamp is outside the accepted range.";
    UnsupportedSaslMechanism = 33, "UNSUPPORTED_SASL_MECHANISM", false,
        "The broker does not offer the SASL mechanism asked for.";
    IllegalSaslState = 34, "ILLEGAL_SASL_STATE", false,
        "The SASL request arrived at a point of the handshake where it is not allowed.";
    UnsupportedVersion = 35, "UNSUPPORTED_VERSION", false,
        "The API version asked for is not one the broker serves.";
    TopicAlreadyExists = 36, "TOPIC_ALREADY_EXISTS", false,
        "A topic with this name exists already.";
    InvalidPartitions = 37, "INVALID_PARTITIONS", false,
        "The partition count is not valid (for example zero, negative or too large).";
    InvalidReplicationFactor = 38, "INVALID_REPLICATION_FACTOR", false,
        "The replication factor is not valid or exceeds the available brokers.";
    InvalidReplicaAssignment = 39, "INVALID_REPLICA_ASSIGNMENT", false,
        "The explicit replica assignment is not valid.";
    InvalidConfig = 40, "INVALID_CONFIG", false,
        "A configuration entry is unknown or has an invalid value.";
    NotController = 41, "NOT_CONTROLLER", true,
        "This broker is not the active controller.";
    InvalidRequest = 42, "INVALID_REQUEST", false,
        "The request is malformed or its fields contradict each other.";
    UnsupportedForMessageFormat = 43, "UNSUPPORTED_FOR_MESSAGE_FORMAT", false,
        "The operation needs a newer record format than the one in use.";
    PolicyViolation = 44, "POLICY_VIOLATION", false,
        "The request was refused by a broker-side policy.";
    OutOfOrderSequenceNumber = 45, "OUT_OF_ORDER_SEQUENCE_NUMBER", false,
        "The broker got a producer sequence number that skips ahead of the expected one.";
    DuplicateSequenceNumber = 46, "DUPLICATE_SEQUENCE_NUMBER", false,
        "The broker got a producer sequence number it has already seen.";
    InvalidProducerEpoch = 47, "INVALID_PRODUCER_EPOCH", false,
        "The producer epoch is older than the one the broker knows.";
    InvalidTxnState = 48, "INVALID_TXN_STATE", false,
        "The operation is not allowed in the transaction's current state.";
    InvalidProducerIdMapping = 49, "INVALID_PRODUCER_ID_MAPPING", false,
        "The producer id is not mapped to this transactional id.";
    InvalidTransactionTimeout = 50, "INVALID_TRANSACTION_TIMEOUT", false,
        "The transaction timeout exceeds the broker's maximum.";
    ConcurrentTransactions = 51, "CONCURRENT_TRANSACTIONS", true,
        "Another operation on the same transactional id is still under way.";
    TransactionCoordinatorFenced = 52, "TRANSACTION_COORDINATOR_FENCED", false,
        "A newer transaction coordinator has taken over this transactional id.";
    TransactionalIdAuthorizationFailed = 53, "TRANSACTIONAL_ID_AUTHORIZATION_FAILED", false,
        "The principal may not use this transactional id.";
    SecurityDisabled = 54, "SECURITY_DISABLED", false,
        "The request needs security features that are not enabled.";
    OperationNotAttempted = 55, "OPERATION_NOT_ATTEMPTED", false,
        "The broker skipped this part because another part of the same request failed.";
    KafkaStorageError = 56, "KAFKA_STORAGE_ERROR", true,
        "A disk or log directory failed while serving the request.";
    LogDirNotFound = 57, "LOG_DIR_NOT_FOUND", false,
        "The named log directory does not exist on the broker.";
    SaslAuthenticationFailed = 58, "SASL_AUTHENTICATION_FAILED", false,
        "SASL authentication did not succeed.";
    UnknownProducerId = 59, "UNKNOWN_PRODUCER_ID", false,
        "The broker no longer has state for this producer id.";
    ReassignmentInProgress = 60, "REASSIGNMENT_IN_PROGRESS", false,
        "The partition is being reassigned already.";
    DelegationTokenAuthDisabled = 61, "DELEGATION_TOKEN_AUTH_DISABLED", false,
        "Delegation tokens are not enabled on this cluster.";
    DelegationTokenNotFound = 62, "DELEGATION_TOKEN_NOT_FOUND", false,
        "No delegation token matches the one given.";
    DelegationTokenOwnerMismatch = 63, "DELEGATION_TOKEN_OWNER_MISMATCH", false,
        "The delegation token belongs to another principal.";
    DelegationTokenRequestNotAllowed = 64, "DELEGATION_TOKEN_REQUEST_NOT_ALLOWED", false,
        "Delegation-token requests are not allowed on this kind of connection.";
    DelegationTokenAuthorizationFailed = 65, "DELEGATION_TOKEN_AUTHORIZATION_FAILED", false,
        "The principal may not perform this delegation-token operation.";
    DelegationTokenExpired = 66, "DELEGATION_TOKEN_EXPIRED", false,
        "The delegation token has expired.";
    InvalidPrincipalType = 67, "INVALID_PRINCIPAL_TYPE", false,
        "The principal type given is not supported.";
    NonEmptyGroup = 68, "NON_EMPTY_GROUP", false,
        "The group still has members, so it cannot be deleted.";
    GroupIdNotFound = 69, "GROUP_ID_NOT_FOUND", false,
        "No group with this id exists (or it is not of the expected type).";
    FetchSessionIdNotFound = 70, "FETCH_SESSION_ID_NOT_FOUND", true,
        "The broker has no fetch session with this id.";
    InvalidFetchSessionEpoch = 71, "INVALID_FETCH_SESSION_EPOCH", true,
        "The fetch session epoch is not the one the broker expects next.";
    ListenerNotFound = 72, "LISTENER_NOT_FOUND", true,
        "The leader has no endpoint on the listener the request came in on.";
    TopicDeletionDisabled = 73, "TOPIC_DELETION_DISABLED", false,
        "Topic deletion is turned off on this cluster.";
    FencedLeaderEpoch = 74, "FENCED_LEADER_EPOCH", true,
        "The leader epoch sent is older than the broker's.";
    UnknownLeaderEpoch = 75, "UNKNOWN_LEADER_EPOCH", true,
        "The leader epoch sent is newer than any the broker knows.";
    UnsupportedCompressionType = 76, "UNSUPPORTED_COMPRESSION_TYPE", false,
        "The compression codec is not allowed at the version the client used.";
    StaleBrokerEpoch = 77, "STALE_BROKER_EPOCH", false,
        "The broker epoch sent is older than the current one.";
    OffsetNotAvailable = 78, "OFFSET_NOT_AVAILABLE", true,
        "The leader cannot yet answer this offset lookup (its high watermark is behind).";
    MemberIdRequired = 79, "MEMBER_ID_REQUIRED", false,
        "The classic group wants the member to rejoin with the member id it was given.";
    PreferredLeaderNotAvailable = 80, "PREFERRED_LEADER_NOT_AVAILABLE", true,
        "The preferred replica could not be made leader.";
    GroupMaxSizeReached = 81, "GROUP_MAX_SIZE_REACHED", false,
        "The group has reached its maximum number of members.";
    FencedInstanceId = 82, "FENCED_INSTANCE_ID", false,
        "Another member now holds this static group instance id.";
    EligibleLeadersNotAvailable = 83, "ELIGIBLE_LEADERS_NOT_AVAILABLE", true,
        "None of the replicas that could lead the partition is available.";
    ElectionNotNeeded = 84, "ELECTION_NOT_NEEDED", true,
        "The partition's leader is already the one an election would pick.";
    NoReassignmentInProgress = 85, "NO_REASSIGNMENT_IN_PROGRESS", false,
        "There is no ongoing reassignment to cancel.";
    GroupSubscribedToTopic = 86, "GROUP_SUBSCRIBED_TO_TOPIC", false,
        "The group's offsets for a topic cannot be deleted while it is subscribed to it.";
    InvalidRecord = 87, "INVALID_RECORD", false,
        "A record failed the broker's validation (for example a bad key or batch layout).";
    UnstableOffsetCommit = 88, "UNSTABLE_OFFSET_COMMIT", true,
        "A transactional offset commit for this partition is not settled yet.";
    ThrottlingQuotaExceeded = 89, "THROTTLING_QUOTA_EXCEEDED", true,
        "The request would exceed a throttling quota (for example on topic mutations).";
    ProducerFenced = 90, "PRODUCER_FENCED", false,
        "A newer producer with the same transactional id has fenced this one.";
    ResourceNotFound = 91, "RESOURCE_NOT_FOUND", false,
        "The resource named in the request does not exist.";
    DuplicateResource = 92, "DUPLICATE_RESOURCE", false,
        "The same resource appears more than once in the request.";
    UnacceptableCredential = 93, "UNACCEPTABLE_CREDENTIAL", false,
        "The credential does not meet the broker's requirements.";
    InconsistentVoterSet = 94, "INCONSISTENT_VOTER_SET", false,
        "The voter set in the request does not match the quorum's.";
    InvalidUpdateVersion = 95, "INVALID_UPDATE_VERSION", false,
        "The version given for an update is not valid.";
    FeatureUpdateFailed = 96, "FEATURE_UPDATE_FAILED", false,
        "The controller could not apply the feature update.";
    PrincipalDeserializationFailure = 97, "PRINCIPAL_DESERIALIZATION_FAILURE", false,
        "The forwarded request's principal could not be deserialized.";
    SnapshotNotFound = 98, "SNAPSHOT_NOT_FOUND", false,
        "The snapshot asked for does not exist.";
    PositionOutOfRange = 99, "POSITION_OUT_OF_RANGE", false,
        "The position asked for lies outside the snapshot.";
    UnknownTopicId = 100, "UNKNOWN_TOPIC_ID", true,
        "The broker does not know this topic id.";
    DuplicateBrokerRegistration = 101, "DUPLICATE_BROKER_REGISTRATION", false,
        "Another broker has registered with the same id.";
    BrokerIdNotRegistered = 102, "BROKER_ID_NOT_REGISTERED", false,
        "No broker with this id is registered.";
    InconsistentTopicId = 103, "INCONSISTENT_TOPIC_ID", true,
        "The topic id sent does not match the one the broker has for the topic.";
    InconsistentClusterId = 104, "INCONSISTENT_CLUSTER_ID", false,
        "The cluster id sent does not match this cluster's.";
    TransactionalIdNotFound = 105, "TRANSACTIONAL_ID_NOT_FOUND", false,
        "No transaction is known under this transactional id.";
    FetchSessionTopicIdError = 106, "FETCH_SESSION_TOPIC_ID_ERROR", true,
        "A topic in the fetch session changed ids or lost its id.";
    IneligibleReplica = 107, "INELIGIBLE_REPLICA", false,
        "The replica asked for cannot join the in-sync set.";
    NewLeaderElected = 108, "NEW_LEADER_ELECTED", false,
        "The partition-change request was superseded by a new leader election.";
    OffsetMovedToTieredStorage = 109, "OFFSET_MOVED_TO_TIERED_STORAGE", false,
        "The offset is now held only in tiered (remote) storage.";
    FencedMemberEpoch = 110, "FENCED_MEMBER_EPOCH", false,
        "The member epoch is not the group's view of it; the member must rejoin with epoch 0.";
    UnreleasedInstanceId = 111, "UNRELEASED_INSTANCE_ID", false,
        "The static instance id is still held by a member that has not left.";
    UnsupportedAssignor = 112, "UNSUPPORTED_ASSIGNOR", false,
        "The server-side assignor named is not one the group coordinator has.";
    StaleMemberEpoch = 113, "STALE_MEMBER_EPOCH", false,
        "The member epoch is older than the member's current one (for example on an offset commit).";
    MismatchedEndpointType = 114, "MISMATCHED_ENDPOINT_TYPE", false,
        "The request came in on an endpoint of the wrong kind (broker vs. controller).";
    UnsupportedEndpointType = 115, "UNSUPPORTED_ENDPOINT_TYPE", false,
        "This kind of endpoint cannot serve the request.";
    UnknownControllerId = 116, "UNKNOWN_CONTROLLER_ID", false,
        "No controller with this id is known.";
    UnknownSubscriptionId = 117, "UNKNOWN_SUBSCRIPTION_ID", false,
        "The client-telemetry subscription id is not the current one.";
    TelemetryTooLarge = 118, "TELEMETRY_TOO_LARGE", false,
        "The pushed client-telemetry payload is larger than allowed.";
    InvalidRegistration = 119, "INVALID_REGISTRATION", false,
        "The controller rejected the broker's registration.";
    TransactionAbortable = 120, "TRANSACTION_ABORTABLE", false,
        "The transaction hit an error the producer can recover from by aborting it.";
    InvalidRecordState = 121, "INVALID_RECORD_STATE", false,
        "The share-group record is not in a state that allows this acknowledgement.";
    ShareSessionNotFound = 122, "SHARE_SESSION_NOT_FOUND", true,
        "The broker has no share session for this member.";
    InvalidShareSessionEpoch = 123, "INVALID_SHARE_SESSION_EPOCH", true,
        "The share session epoch is not the one the broker expects next.";
    FencedStateEpoch = 124, "FENCED_STATE_EPOCH", false,
        "The share-group state epoch sent is older than the stored one.";
    InvalidVoterKey = 125, "INVALID_VOTER_KEY", false,
        "The voter's id or directory id does not match.";
    DuplicateVoter = 126, "DUPLICATE_VOTER", false,
        "The voter is already part of the quorum.";
    VoterNotFound = 127, "VOTER_NOT_FOUND", false,
        "The voter is not part of the quorum.";
    InvalidRegularExpression = 128, "INVALID_REGULAR_EXPRESSION", false,
        "A subscription's regular expression does not compile.";
    RebootstrapRequired = 129, "REBOOTSTRAP_REQUIRED", false,
        "The client must discard its metadata and bootstrap again.";
    StreamsInvalidTopology = 130, "STREAMS_INVALID_TOPOLOGY", false,
        "The streams topology sent is not valid.";
    StreamsInvalidTopologyEpoch = 131, "STREAMS_INVALID_TOPOLOGY_EPOCH", false,
        "The streams topology epoch sent does not fit the group's topology.";
    StreamsTopologyFenced = 132, "STREAMS_TOPOLOGY_FENCED", false,
        "The member's streams topology epoch is older than the group's.";
    ShareSessionLimitReached = 133, "SHARE_SESSION_LIMIT_REACHED", true,
        "The broker already holds as many share sessions as it allows.";
    GroupDeletionFailed = 134, "GROUP_DELETION_FAILED", false,
        "The group could not be deleted.";
    StreamsTopologyDescriptionUpdateFailed = 135, "STREAMS_TOPOLOGY_DESCRIPTION_UPDATE_FAILED", false,
        "The streams group's topology description could not be stored.";
    ControllerIdNotRegistered = 136, "CONTROLLER_ID_NOT_REGISTERED", false,
        "No controller with this id has registered.";
}

impl ErrorCode {
    /// The wire value (Kafka's `Errors.code()`).
    pub const fn code(self) -> i16 {
        self as i16
    }

    /// Whether this is a real error, i.e. anything but [`ErrorCode::None`].
    pub const fn is_error(self) -> bool {
        !matches!(self, ErrorCode::None)
    }

    /// The code with Kafka's name `name` (exact, upper case: `"NOT_COORDINATOR"`).
    pub fn from_name(name: &str) -> Option<ErrorCode> {
        ErrorCode::ALL.iter().copied().find(|e| e.name() == name)
    }
}

impl From<ErrorCode> for i16 {
    fn from(e: ErrorCode) -> i16 {
        e.code()
    }
}

impl TryFrom<i16> for ErrorCode {
    type Error = KafkaError;

    /// The code for `code`, or the unknown value as a [`KafkaError`].
    fn try_from(code: i16) -> Result<ErrorCode, KafkaError> {
        ErrorCode::from_code(code).ok_or(KafkaError { code })
    }
}

/// Kafka's name, e.g. `NONE` or `UNKNOWN_MEMBER_ID` (see [`ErrorCode`]).
impl fmt::Debug for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// `NAME (code)`, e.g. `UNKNOWN_MEMBER_ID (25)`.
impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.name(), self.code())
    }
}

/// An error code as read from the wire: any `i16`, whether [`ErrorCode`] knows it or not (a newer
/// broker may send codes this table lacks). `0` is NONE, not an error; [`KafkaError::check`]
/// turns a response's code into a `Result`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct KafkaError {
    /// The wire value.
    pub code: i16,
}

impl KafkaError {
    /// `Ok(())` for `0` (NONE), else the code as an error.
    ///
    /// # Errors
    /// Any code but `0`.
    pub const fn check(code: i16) -> Result<(), KafkaError> {
        if code == 0 {
            Ok(())
        } else {
            Err(KafkaError { code })
        }
    }

    /// The code, if the table knows it.
    pub const fn known(self) -> Option<ErrorCode> {
        ErrorCode::from_code(self.code)
    }

    /// Kafka's name, or `"UNKNOWN"` for a code the table does not know.
    pub const fn name(self) -> &'static str {
        match self.known() {
            Some(e) => e.name(),
            Option::None => "UNKNOWN",
        }
    }

    /// [`ErrorCode::is_retriable`]; `false` for a code the table does not know (Kafka's clients
    /// map unknown codes to a non-retriable error).
    pub const fn is_retriable(self) -> bool {
        match self.known() {
            Some(e) => e.is_retriable(),
            Option::None => false,
        }
    }
}

impl From<i16> for KafkaError {
    fn from(code: i16) -> KafkaError {
        KafkaError { code }
    }
}

impl From<ErrorCode> for KafkaError {
    fn from(e: ErrorCode) -> KafkaError {
        KafkaError { code: e.code() }
    }
}

impl From<KafkaError> for i16 {
    fn from(e: KafkaError) -> i16 {
        e.code
    }
}

/// `NAME (code): description` for a known code, `unknown error code N` otherwise.
impl fmt::Display for KafkaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.known() {
            Some(e) => write!(f, "{e}: {}", e.description()),
            Option::None => write!(f, "unknown error code {}", self.code),
        }
    }
}

impl std::error::Error for KafkaError {}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn table_matches_kafka_4_4() {
        // Kafka 4.4.0's Errors has 138 values: -1 (UNKNOWN_SERVER_ERROR), 0 (NONE) and 1-136.
        assert_eq!(ErrorCode::ALL.len(), 138);
        let codes: Vec<i16> = ErrorCode::ALL.iter().map(|e| e.code()).collect();
        assert_eq!(codes, (-1..=136).collect::<Vec<i16>>());
        // These 32 map to a RetriableException.
        let retriable: Vec<i16> = ErrorCode::ALL
            .iter()
            .filter(|e| e.is_retriable())
            .map(|e| e.code())
            .collect();
        assert_eq!(
            retriable,
            [
                2, 3, 5, 6, 7, 9, 13, 14, 15, 16, 19, 20, 41, 51, 56, 70, 71, 72, 74, 75, 78, 80,
                83, 84, 88, 89, 100, 103, 106, 122, 123, 133
            ]
        );
    }

    #[test]
    fn every_code_round_trips() {
        for &e in ErrorCode::ALL {
            let raw: i16 = e.into();
            assert_eq!(raw, e.code());
            assert_eq!(raw, e as i16);
            assert_eq!(ErrorCode::from_code(raw), Some(e));
            assert_eq!(ErrorCode::try_from(raw), Ok(e));
            assert_eq!(ErrorCode::from_name(e.name()), Some(e));
            assert_eq!(KafkaError::from(raw).known(), Some(e));
            assert_eq!(i16::from(KafkaError::from(e)), raw);
            assert_eq!(e.to_string(), format!("{} ({raw})", e.name()));
            assert_eq!(format!("{e:?}"), e.name());
        }
        // NONE is NONE, also inside an Option (the derived Debug printed `Some(None)`).
        assert_eq!(format!("{:?}", ErrorCode::from_code(0)), "Some(NONE)");
        assert_eq!(
            format!("{:?} {}", ErrorCode::None, ErrorCode::None),
            "NONE NONE (0)"
        );
        for unknown in [-2, 137, 1000, i16::MIN, i16::MAX] {
            assert_eq!(ErrorCode::from_code(unknown), Option::None);
            assert_eq!(
                ErrorCode::try_from(unknown),
                Err(KafkaError { code: unknown })
            );
            let e = KafkaError::from(unknown);
            assert_eq!((e.name(), e.is_retriable()), ("UNKNOWN", false));
            assert_eq!(e.to_string(), format!("unknown error code {unknown}"));
        }
    }

    #[test]
    fn names_and_descriptions_are_unique_and_well_formed() {
        let names: HashSet<&str> = ErrorCode::ALL.iter().map(|e| e.name()).collect();
        assert_eq!(names.len(), ErrorCode::ALL.len());
        let descriptions: HashSet<&str> = ErrorCode::ALL.iter().map(|e| e.description()).collect();
        assert_eq!(descriptions.len(), ErrorCode::ALL.len());
        for e in ErrorCode::ALL {
            let n = e.name();
            assert!(
                n.bytes().all(|b| b.is_ascii_uppercase() || b == b'_'),
                "{n}"
            );
            // The variant is the CamelCase of the name (the mapping the module docs state).
            let camel: String = n
                .split('_')
                .map(|w| w[..1].to_string() + &w[1..].to_ascii_lowercase())
                .collect();
            assert_eq!(e.variant_name(), camel);
            assert!(e.description().ends_with('.'), "{n}");
        }
    }

    #[test]
    fn known_codes() {
        assert_eq!(ErrorCode::UnknownServerError.code(), -1);
        assert_eq!(ErrorCode::None.code(), 0);
        assert!(!ErrorCode::None.is_error() && ErrorCode::UnknownServerError.is_error());
        assert_eq!(ErrorCode::from_code(25), Some(ErrorCode::UnknownMemberId));
        assert_eq!(ErrorCode::UnknownMemberId.name(), "UNKNOWN_MEMBER_ID");
        assert_eq!(
            ErrorCode::from_code(110),
            Some(ErrorCode::FencedMemberEpoch)
        );
        assert_eq!(ErrorCode::FencedMemberEpoch.name(), "FENCED_MEMBER_EPOCH");
        assert_eq!(ErrorCode::from_code(113), Some(ErrorCode::StaleMemberEpoch));
        assert_eq!(ErrorCode::StaleMemberEpoch.name(), "STALE_MEMBER_EPOCH");
        assert_eq!(
            ErrorCode::from_code(136),
            Some(ErrorCode::ControllerIdNotRegistered)
        );
        assert_eq!(ErrorCode::InvalidTopicException.code(), 17);
        assert!(ErrorCode::NotCoordinator.is_retriable());
        assert!(ErrorCode::CoordinatorLoadInProgress.is_retriable());
        assert!(ErrorCode::UnknownTopicOrPartition.is_retriable());
        assert!(ErrorCode::RequestTimedOut.is_retriable());
        assert!(!ErrorCode::InvalidRequest.is_retriable());
        assert!(!ErrorCode::UnknownMemberId.is_retriable());
        assert!(!ErrorCode::FencedMemberEpoch.is_retriable());
        assert!(!ErrorCode::None.is_retriable());
        assert_eq!(KafkaError::check(0), Ok(()));
        assert_eq!(KafkaError::check(16), Err(KafkaError { code: 16 }));
        assert!(KafkaError::from(16).is_retriable());
        assert_eq!(
            KafkaError::from(ErrorCode::NotCoordinator).to_string(),
            format!(
                "NOT_COORDINATOR (16): {}",
                ErrorCode::NotCoordinator.description()
            )
        );
    }
}
