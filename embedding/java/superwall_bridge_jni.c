/* The JNI shim between com.superwall.bridge.SuperwallBridge and superwall_bridge.h. The
 * bridge calls back on threads of its own: each is attached to the JVM (as a daemon) the first
 * time and detached when it ends. */
#include <jni.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "superwall_bridge.h"

typedef struct {
    superwall_bridge *bridge;
    JavaVM *vm;
    jobject listener;   /* a global reference */
    jclass bridge_class; /* a global reference */
    jmethodID deliver;
} shim_t;

static pthread_key_t attached_key;
static pthread_once_t attached_once = PTHREAD_ONCE_INIT;

static void detach(void *vm) { (*(JavaVM *)vm)->DetachCurrentThread((JavaVM *)vm); }

static void make_key(void) { pthread_key_create(&attached_key, detach); }

static void on_output(void *context, const char *message, size_t length) {
    shim_t *shim = context;
    JNIEnv *env = NULL;
    if ((*shim->vm)->GetEnv(shim->vm, (void **)&env, JNI_VERSION_1_8) != JNI_OK) {
        if ((*shim->vm)->AttachCurrentThreadAsDaemon(shim->vm, (void **)&env, NULL) != JNI_OK) return;
        pthread_once(&attached_once, make_key);
        pthread_setspecific(attached_key, shim->vm);
    }
    jbyteArray bytes = (*env)->NewByteArray(env, (jsize)length);
    if (!bytes) return;
    (*env)->SetByteArrayRegion(env, bytes, 0, (jsize)length, (const jbyte *)message);
    (*env)->CallStaticVoidMethod(env, shim->bridge_class, shim->deliver, shim->listener, bytes);
    if ((*env)->ExceptionCheck(env)) (*env)->ExceptionDescribe(env); /* a listener's exception is not the bridge's */
    (*env)->DeleteLocalRef(env, bytes);
}

JNIEXPORT jlong JNICALL Java_com_superwall_bridge_SuperwallBridge_nativeOpen(JNIEnv *env, jclass class,
                                                                             jstring options, jobject listener) {
    shim_t *shim = calloc(1, sizeof *shim);
    (*env)->GetJavaVM(env, &shim->vm);
    shim->listener = (*env)->NewGlobalRef(env, listener);
    shim->bridge_class = (*env)->NewGlobalRef(env, class);
    shim->deliver = (*env)->GetStaticMethodID(env, class, "deliver",
                                              "(Lcom/superwall/bridge/SuperwallBridge$Listener;[B)V");
    const char *text = options ? (*env)->GetStringUTFChars(env, options, NULL) : NULL;
    char error[512] = "";
    shim->bridge = superwall_bridge_open(text, on_output, shim, error, sizeof error);
    if (text) (*env)->ReleaseStringUTFChars(env, options, text);
    if (!shim->bridge) {
        (*env)->DeleteGlobalRef(env, shim->listener);
        (*env)->DeleteGlobalRef(env, shim->bridge_class);
        free(shim);
        (*env)->ThrowNew(env, (*env)->FindClass(env, "java/lang/IllegalArgumentException"), error);
        return 0;
    }
    return (jlong)(intptr_t)shim;
}

JNIEXPORT jint JNICALL Java_com_superwall_bridge_SuperwallBridge_nativeSend(JNIEnv *env, jclass class, jlong handle,
                                                                            jbyteArray message) {
    (void)class;
    shim_t *shim = (shim_t *)(intptr_t)handle;
    jsize length = (*env)->GetArrayLength(env, message);
    jbyte *bytes = (*env)->GetByteArrayElements(env, message, NULL);
    int result = superwall_bridge_send(shim->bridge, (const char *)bytes, (size_t)length);
    (*env)->ReleaseByteArrayElements(env, message, bytes, JNI_ABORT);
    return result;
}

JNIEXPORT jint JNICALL Java_com_superwall_bridge_SuperwallBridge_nativeClose(JNIEnv *env, jclass class,
                                                                             jlong handle) {
    (void)class;
    shim_t *shim = (shim_t *)(intptr_t)handle;
    int status = superwall_bridge_close(shim->bridge);
    if (status == -1) return -1;
    (*env)->DeleteGlobalRef(env, shim->listener);
    (*env)->DeleteGlobalRef(env, shim->bridge_class);
    free(shim);
    return status;
}
