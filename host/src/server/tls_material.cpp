#include "server/tls_material.hpp"

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <sys/stat.h>

#include <cstdio>
#include <memory>

#include "eventsvc/sdk/error.hpp"

namespace eventsvc::host {

namespace {

template <class T, void (*Free)(T*)>
struct Deleter {
  void operator()(T* p) const { Free(p); }
};
using KeyPtr = std::unique_ptr<EVP_PKEY, Deleter<EVP_PKEY, EVP_PKEY_free>>;
using CertPtr = std::unique_ptr<X509, Deleter<X509, X509_free>>;

[[noreturn]] void fail(const std::string& what) {
  throw sdk::Error(500, "cannot create the self-signed certificate: " + what);
}

void add_extension(X509* cert, int nid, const char* value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, cert, cert, nullptr, nullptr, 0);
  X509_EXTENSION* extension = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value);
  if (extension == nullptr) fail("extension");
  X509_add_ext(cert, extension, -1);
  X509_EXTENSION_free(extension);
}

void write_pem(const std::filesystem::path& path, mode_t mode, auto&& writer) {
  std::filesystem::create_directories(path.parent_path());
  const std::string temporary = path.string() + ".tmp";
  FILE* file = std::fopen(temporary.c_str(), "wb");
  if (file == nullptr) fail("cannot write " + temporary);
  ::chmod(temporary.c_str(), mode);
  const bool ok = writer(file);
  std::fclose(file);
  if (!ok) fail("cannot write " + temporary);
  std::filesystem::rename(temporary, path);
}

}  // namespace

bool ensure_tls_material(const TlsConfig& tls) {
  const bool have_cert = std::filesystem::exists(tls.certificate);
  const bool have_key = std::filesystem::exists(tls.private_key);
  if (have_cert && have_key) return false;
  if (have_cert != have_key || !tls.self_signed) {
    throw sdk::Error(500,
                     "server.tls: " + (have_cert ? tls.private_key : tls.certificate).string() +
                         " does not exist" +
                         (tls.self_signed ? " (a self-signed pair is only created when both "
                                            "files are absent)"
                                          : ""));
  }
  KeyPtr key(EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256"));
  if (!key) fail("key generation");
  CertPtr cert(X509_new());
  X509_set_version(cert.get(), 2);
  unsigned char serial[16];
  RAND_bytes(serial, sizeof serial);
  serial[0] &= 0x7F;
  BIGNUM* bn = BN_bin2bn(serial, sizeof serial, nullptr);
  BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(cert.get()));
  BN_free(bn);
  X509_gmtime_adj(X509_getm_notBefore(cert.get()), -3600);
  X509_gmtime_adj(X509_getm_notAfter(cert.get()), 60L * 60 * 24 * 825);
  X509_set_pubkey(cert.get(), key.get());
  X509_NAME* name = X509_get_subject_name(cert.get());
  X509_NAME_add_entry_by_txt(name, "O", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>("eventsvc"), -1, -1, 0);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>("localhost"), -1, -1, 0);
  X509_set_issuer_name(cert.get(), name);
  add_extension(cert.get(), NID_subject_alt_name, "DNS:localhost,IP:127.0.0.1,IP:::1");
  add_extension(cert.get(), NID_basic_constraints, "critical,CA:FALSE");
  add_extension(cert.get(), NID_ext_key_usage, "serverAuth");
  if (X509_sign(cert.get(), key.get(), EVP_sha256()) == 0) fail("signing");

  write_pem(tls.private_key, 0600, [&](FILE* file) {
    return PEM_write_PrivateKey(file, key.get(), nullptr, nullptr, 0, nullptr, nullptr) == 1;
  });
  write_pem(tls.certificate, 0644,
            [&](FILE* file) { return PEM_write_X509(file, cert.get()) == 1; });
  return true;
}

}  // namespace eventsvc::host
